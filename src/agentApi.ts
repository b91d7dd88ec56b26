import * as vscode from 'vscode';
import { registerAgentCommands } from './agentCommands';
import type { ActiveHook, GarudaHooksApi, HooksRunEvent, PostToolUseResult, PreToolUseResult, StopRequest, StopResult, ToolCallRequest } from './api';
import { uniqueActiveHooks, type HookSet } from './core/hookSet';
import { SYSTEM_PROMPT_NOTE } from './core/modelText';
import type { HookOutcome } from './core/runner';
import type { Ctx } from './ctx';

const HOOKS_NOT_LOADED = 'Garuda Hooks could not load the hooks, so it blocks the call; see the "Garuda Hooks" log.';

/** The typed API of `activate()`, and the same operations as commands for untyped callers. */
export function createAgentApi(ctx: Ctx, ready: Promise<void>): Omit<GarudaHooksApi, 'activationMs'> {
  const continuations = new Map<string, number>();
  const runEvents = new vscode.EventEmitter<HooksRunEvent>();
  ctx.subscriptions.push(runEvents);
  ctx.onDidRunHooks(({ outcome, set }) => runEvents.fire(toRunEvent(outcome, set)), null, ctx.subscriptions);

  const coreCall = (call: ToolCallRequest) => ({
    tool: call.tool,
    input: call.input,
    ...(call.toolCallId !== undefined && { toolCallId: call.toolCallId }),
    ...(call.step !== undefined && { step: call.step }),
    ...(call.agent !== undefined && { agent: call.agent }),
  });

  const api: Omit<GarudaHooksApi, 'activationMs'> = {
    version: 1,
    ready,
    async preToolUse(call): Promise<PreToolUseResult> {
      if (!ctx.config.enabled) return { decision: 'allow', warnings: [] };
      const set = await ctx.hookSetFor(call.folder);
      // Turned on but nothing could be loaded: the guards that should have run cannot pass the call.
      if (!set) return { decision: 'deny', reason: HOOKS_NOT_LOADED, warnings: [HOOKS_NOT_LOADED] };
      const outcome = await ctx.runner.preToolUse(set, coreCall(call));
      return { decision: outcome.decision, ...(outcome.reason !== undefined && { reason: outcome.reason }), warnings: outcome.warnings };
    },
    async postToolUse(call, result): Promise<PostToolUseResult> {
      const set = await ctx.hookSetFor(call.folder);
      if (!set) return { warnings: [] };
      const outcome = await ctx.runner.postToolUse(set, coreCall(call), result);
      return { ...(outcome.feedback !== undefined && { feedback: outcome.feedback }), warnings: outcome.warnings };
    },
    async stop(run: StopRequest): Promise<StopResult> {
      const key = run.runId ?? run.agent ?? 'default';
      const before = continuations.get(key) ?? 0;
      const set = await ctx.hookSetFor(run.folder);
      if (!set) return { decision: 'allow', continuations: before, warnings: [] };
      const outcome = await ctx.runner.stop(set, {
        continuations: before,
        ...(run.status !== undefined && { status: run.status }),
        ...(run.submission !== undefined && { submission: run.submission }),
      });
      // A finished run starts counting afresh next time.
      if (outcome.decision === 'allow') continuations.delete(key);
      else continuations.set(key, outcome.continuations);
      return {
        decision: outcome.decision,
        ...(outcome.reason !== undefined && { reason: outcome.reason }),
        continuations: outcome.continuations,
        warnings: outcome.warnings,
      };
    },
    onDidRunHooks: runEvents.event,
    activeHooks: () => activeHooks(ctx),
    systemPromptNote: () => (ctx.config.enabled && activeHooks(ctx).length > 0 ? SYSTEM_PROMPT_NOTE : undefined),
  };

  registerAgentCommands(ctx, api);
  return api;
}

function activeHooks(ctx: Ctx): ActiveHook[] {
  return uniqueActiveHooks(ctx.sets()).map(({ hook, root }) => ({
    source: hook.source,
    event: hook.event,
    command: hook.command,
    tools: hook.tools,
    timeoutMs: hook.timeoutMs,
    network: hook.network,
    onFailure: hook.onFailure,
    ...(hook.source === 'project' && { folder: root }),
    file: hook.file,
  }));
}

function toRunEvent(outcome: HookOutcome, set: HookSet): HooksRunEvent {
  return {
    event: outcome.event,
    ...(outcome.event !== 'stop' && { tool: outcome.tool }),
    decision: outcome.decision,
    root: set.root,
    runs: outcome.runs.map((run) => ({ source: run.source, command: run.command, decision: run.decision, exitCode: run.exitCode, durationMs: run.durationMs })),
  };
}
