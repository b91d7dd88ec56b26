import * as vscode from 'vscode';
import * as z from 'zod/mini';
import type { GarudaHooksApi } from './api';
import { describeIssues } from './core/issues';
import { lazy } from './core/lazy';
import type { Ctx } from './ctx';

// Callers without the typed API may pass anything: check it, and take a folder as a Uri or a path.
// The schemas are built on first use (see lazy.ts).
const schemas = lazy(() => {
  const folder = z.optional(
    z.union([z.custom<vscode.Uri>((value) => value instanceof vscode.Uri, 'expected a vscode.Uri'), z.pipe(z.string().check(z.minLength(1)), z.transform(toUri))]),
  );
  const optionalText = z.optional(z.string());
  return {
    toolCall: z.object({
      tool: z.string().check(z.minLength(1)),
      input: z.unknown(),
      toolCallId: optionalText,
      folder,
      agent: optionalText,
      step: z.optional(z.number().check(z.int(), z.minimum(0))),
    }),
    stopRun: z.object({ runId: optionalText, folder, agent: optionalText, status: optionalText, submission: optionalText }),
  };
});

const TOOL_CALL_SHAPE = '{tool, input, folder?, toolCallId?, agent?, step?}';
const STOP_SHAPE = '{runId?, folder?, agent?, status?, submission?}';

/** The API's operations as commands, for extensions that do not take a typed dependency. */
export function registerAgentCommands(ctx: Ctx, api: Pick<GarudaHooksApi, 'preToolUse' | 'postToolUse' | 'stop'>): void {
  ctx.subscriptions.push(
    vscode.commands.registerCommand('garudaHooks.preToolUse', (call: unknown) => api.preToolUse(argument('garudaHooks.preToolUse', schemas().toolCall, call, TOOL_CALL_SHAPE))),
    vscode.commands.registerCommand('garudaHooks.postToolUse', (call: unknown, result: unknown) =>
      api.postToolUse(argument('garudaHooks.postToolUse', schemas().toolCall, call, TOOL_CALL_SHAPE), result),
    ),
    vscode.commands.registerCommand('garudaHooks.stop', (run: unknown) => api.stop(argument('garudaHooks.stop', schemas().stopRun, run ?? {}, STOP_SHAPE))),
  );
}

/** The argument as the API's type; a TypeError saying what to change rejects the command otherwise. */
function argument<T>(command: string, schema: z.ZodMiniType<T>, value: unknown, shape: string): T {
  const parsed = schema.safeParse(value, { reportInput: true });
  if (parsed.success) return parsed.data;
  throw new TypeError(`${command}: ${describeIssues(parsed.error.issues)}. Pass ${shape}.`);
}

/** A URI string (`file:///…`, `vscode-remote://…`) or a file path. */
function toUri(text: string): vscode.Uri {
  return /^[a-z][\w+.-]+:\/\//i.test(text) ? vscode.Uri.parse(text) : vscode.Uri.file(text);
}
