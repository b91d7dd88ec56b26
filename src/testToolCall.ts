import { randomUUID } from 'node:crypto';
import picomatch from 'picomatch';
import * as vscode from 'vscode';
import { cleanLine } from './core/clean';
import { HOOK_EVENTS, isRecord, type Hook, type HookEvent } from './core/hookConfig';
import type { HookSet } from './core/hookSet';
import { parseRule } from './core/rules';
import type { HookOutcome } from './core/runner';
import { BASH_TOOL, canonicalToolName, FETCH_TOOL, isPathTool, PATTERN_TOOLS, toolTarget } from './core/toolNames';
import type { Ctx } from './ctx';
import { ReadOnlyDocuments } from './readOnlyDocuments';
import { asciiJson, clockTime, fence, recordMarkdown } from './report';

/** What to test; whatever is missing is asked for. */
export interface TestCallRequest {
  readonly event?: HookEvent;
  readonly tool?: string;
  readonly input?: unknown;
  readonly folder?: vscode.Uri;
  /** The input box's starting value when `input` is missing. */
  readonly sample?: unknown;
}

/** Runs one call through the real runner and shows the report; undefined when the user cancels. */
export type TestToolCall = (request: TestCallRequest) => Promise<HookOutcome | undefined>;

const TEST_SCHEME = 'garuda-test';

/**
 * "Garuda: Test a Tool Call", seed 004's dry run: hooks run exactly as for an agent's call (the
 * audit log included, marked by a `test-` tool call id) but no tool runs and no agent is involved.
 * As a command it takes `(event, tool, input, folderUri)`; given all of them it asks nothing.
 */
export function registerTestToolCall(ctx: Ctx): TestToolCall {
  const reports = new ReadOnlyDocuments(TEST_SCHEME);
  const test: TestToolCall = async (request) => {
    const event = request.event ?? (await pickEvent());
    const call = event === 'stop' ? undefined : await askCall(request);
    if (!event || (event !== 'stop' && !call)) return undefined;
    const where = request.folder ? { folder: request.folder } : await pickFolder();
    if (!where) return undefined;
    await ctx.hooks.ready;
    const set = ctx.hooks.setFor(where.folder);
    if (!set) throw new Error('Garuda Hooks has not loaded any hooks yet; try again in a moment.');
    const toolCallId = `test-${randomUUID()}`;
    const outcome = await vscode.window.withProgress({ location: vscode.ProgressLocation.Window, title: 'Garuda: testing a tool call' }, (): Promise<HookOutcome> => {
      if (!call) return ctx.runner.stop(set, { continuations: 0 });
      return event === 'preToolUse' ? ctx.runner.preToolUse(set, { ...call, toolCallId }) : ctx.runner.postToolUse(set, { ...call, toolCallId }, TEST_RESULT);
    });
    await reports.show(`Test ${callLabel(outcome)} ${clockTime(new Date().toISOString())}.md`, toolCallId, report(ctx, set, outcome, call?.input));
    return outcome;
  };
  ctx.subscriptions.push(
    reports,
    vscode.commands.registerCommand('garudaHooks.testToolCall', (event?: unknown, tool?: unknown, input?: unknown, folder?: unknown) =>
      test(requestFromArgs(event, tool, input, folder)),
    ),
  );
  return test;
}

/** "Test Hook" on a hook: its event, and its first rule's tool with an input that rule matches. */
export function requestForHook(hook: Hook, folder?: vscode.Uri): TestCallRequest {
  const parsed = hook.tools[0] === undefined ? undefined : parseRule(hook.tools[0]);
  const rule = parsed?.ok ? parsed.rule : undefined;
  // A rule on a tool glob (`mcp__github__*`, `*`) names no one tool: the tool is asked for.
  const tool = rule && !picomatch.scan(rule.tool).isGlob ? rule.tool : undefined;
  return {
    event: hook.event,
    ...(tool !== undefined && { tool }),
    ...(folder && { folder }),
    ...(tool !== undefined && rule?.pattern && { sample: sampleInput(tool, rule.pattern) }),
  };
}

/** What is wrong with `text` as the input of a `tool` call, or undefined when it will do. */
function inputProblem(tool: string, text: string): string | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return `Not valid JSON: ${(error as Error).message}`;
  }
  const example = JSON.stringify(templateOf(tool));
  if (!isRecord(value)) return `Expected a JSON object such as ${example}, got ${Array.isArray(value) ? 'an array' : JSON.stringify(value)}`;
  const known = (PATTERN_TOOLS as readonly string[]).includes(canonicalToolName(tool));
  // The runner reads the same fields: an input it cannot read would be a call no rule pattern meets.
  if (known && toolTarget(tool, value, '/').kind === 'none') return `A ${tool} call needs ${Object.keys(templateOf(tool))[0]}, e.g. ${example}`;
  return undefined;
}

/** Handed to postToolUse hooks as the tool's result: no tool ran. */
const TEST_RESULT = { note: 'Garuda: Test a Tool Call; no tool ran' };

const TOOLS: readonly { readonly tool: string; readonly detail: string; readonly template: Readonly<Record<string, string>> }[] = [
  { tool: BASH_TOOL, detail: 'run a shell command', template: { command: 'git status' } },
  { tool: 'edit_file', detail: 'change a file', template: { path: 'src/index.ts', old_string: 'before', new_string: 'after' } },
  { tool: 'write_file', detail: 'create or overwrite a file', template: { path: 'src/new.ts', content: '' } },
  { tool: 'read_file', detail: 'read a file', template: { path: '.env' } },
  { tool: FETCH_TOOL, detail: 'fetch a URL', template: { url: 'https://example.com/' } },
];

const OTHER_TOOL = 'Other…';

function templateOf(tool: string): Readonly<Record<string, string>> {
  return TOOLS.find((t) => t.tool === canonicalToolName(tool))?.template ?? {};
}

/** An input the rule's pattern matches: `git push*` → `git push`, `src/**\/*.ts` → `src/sub/example.ts`. */
function sampleInput(tool: string, pattern: string): unknown {
  if (tool === BASH_TOOL) return { command: pattern.replace(/\*/g, '').trim() || 'true' };
  if (isPathTool(tool)) return { ...templateOf(tool), path: pattern.replace(/\*\*/g, 'sub').replace(/\*/g, 'example') };
  if (tool === FETCH_TOOL) return { url: pattern.startsWith('domain:') ? `https://${pattern.slice('domain:'.length)}/` : pattern.replace(/\*/g, 'example') };
  return templateOf(tool);
}

function requestFromArgs(event: unknown, tool: unknown, input: unknown, folder: unknown): TestCallRequest {
  if (event !== undefined && !(HOOK_EVENTS as readonly unknown[]).includes(event)) {
    throw new TypeError(`Expected the event to be ${HOOK_EVENTS.join(', ')}, got ${JSON.stringify(event)}`);
  }
  if (tool !== undefined && (typeof tool !== 'string' || tool.trim() === '')) throw new TypeError(`Expected a tool name such as "bash", got ${JSON.stringify(tool)}`);
  if (folder !== undefined && !(folder instanceof vscode.Uri)) throw new TypeError('Expected the folder as a vscode.Uri of a workspace folder');
  const problem = tool !== undefined && input !== undefined ? inputProblem(tool, JSON.stringify(input)) : undefined;
  if (problem) throw new TypeError(problem);
  return { ...(event !== undefined && { event }), ...(tool !== undefined && { tool }), ...(input !== undefined && { input }), ...(folder !== undefined && { folder }) } as TestCallRequest;
}

async function pickEvent(): Promise<HookEvent | undefined> {
  const items = [
    { label: 'preToolUse' as const, detail: 'Before a tool call: guards that can block it' },
    { label: 'postToolUse' as const, detail: 'After a tool call: checks that give the model feedback' },
    { label: 'stop' as const, detail: 'When the agent wants to finish: hooks that can send it back to work' },
  ];
  return (await vscode.window.showQuickPick(items, { title: 'Test a Tool Call (1/3): which event?' }))?.label;
}

async function pickTool(): Promise<string | undefined> {
  const items = [...TOOLS.map(({ tool, detail }) => ({ label: tool, description: detail })), { label: OTHER_TOOL, description: 'an MCP tool or another agent’s tool name' }];
  const picked = await vscode.window.showQuickPick(items, { title: 'Test a Tool Call (2/3): which tool?' });
  if (picked?.label !== OTHER_TOOL) return picked?.label;
  return vscode.window.showInputBox({
    title: 'Test a Tool Call: the tool’s name',
    placeHolder: 'mcp__github__create_issue',
    validateInput: (name) => (/^\S+$/.test(name) ? undefined : 'A tool name has no spaces and is not empty'),
  });
}

/** The tool and its input, each asked for when the request lacks it; undefined when cancelled. */
async function askCall(request: TestCallRequest): Promise<{ tool: string; input: unknown } | undefined> {
  const tool = request.tool ?? (await pickTool());
  const input = tool === undefined ? undefined : request.input ?? (await askInput(tool, request.sample));
  return tool === undefined || input === undefined ? undefined : { tool, input };
}

async function askInput(tool: string, sample: unknown): Promise<unknown> {
  const text = await vscode.window.showInputBox({
    title: `Test a Tool Call (3/3): the ${cleanLine(tool, 80)} call’s input`,
    prompt: 'JSON, as the agent would send it',
    value: JSON.stringify(sample ?? templateOf(tool)),
    validateInput: (value) => inputProblem(tool, value),
  });
  return text === undefined ? undefined : JSON.parse(text);
}

/** The folder whose hooks answer; asked only in a multi-root workspace. Undefined when cancelled. */
async function pickFolder(): Promise<{ folder?: vscode.Uri } | undefined> {
  const folders = vscode.workspace.workspaceFolders ?? [];
  if (folders.length <= 1) return folders[0] ? { folder: folders[0].uri } : {};
  const picked = await vscode.window.showWorkspaceFolderPick({ placeHolder: 'Test with the hooks of which folder?' });
  return picked && { folder: picked.uri };
}

function report(ctx: Ctx, set: HookSet, outcome: HookOutcome, input: unknown): string {
  const { runs, warnings, ...summary } = outcome;
  const parts = [
    `# Test a Tool Call: ${callLabel(outcome)} → ${outcome.decision}`,
    `Hooks of ${cleanLine(set.root, 300)}, run by the real runner; no tool ran and no agent was involved.`,
  ];
  if (!ctx.config.enabled) parts.push('> Garuda Hooks is turned off (garudaHooks.enabled): agents’ calls run no hooks now. This test ran them anyway.');
  parts.push('## Outcome', recordMarkdown(summary, '###'));
  if (input !== undefined) parts.push('## Input', fence(asciiJson(input), 'json'));
  if (warnings.length > 0) parts.push('## Warnings', warnings.map((w) => `- ${cleanLine(w, 1000)}`).join('\n'));
  parts.push(`## Hooks that ran: ${runs.length}`);
  if (runs.length === 0) parts.push('No active hook matched this call.');
  runs.forEach((run, i) => parts.push(`### ${i + 1}. ${run.source} hook → ${run.decision}`, recordMarkdown(run, '####')));
  return parts.join('\n\n') + '\n';
}

/** `preToolUse bash`, or `stop`. */
function callLabel(outcome: HookOutcome): string {
  return cleanLine(outcome.event === 'stop' ? 'stop' : `${outcome.event} ${outcome.tool}`, 120);
}
