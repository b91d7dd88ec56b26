import { promises as fs } from 'node:fs';
import * as vscode from 'vscode';
import type { GarudaHooksApi, ToolCallRequest } from './api';
import { cleanLine } from './core/clean';
import { terminalEnv } from './core/executor';
import { fetchTextAction } from './core/fetchText';
import { matchingHooks, stopHooks } from './core/matchingHooks';
import { blockedMessage } from './core/modelText';
import { editFileAction, readFileAction, runCommandAction, writeFileAction, type ActionResult } from './core/toolActions';
import { COMMAND_TIMEOUT_MS, LM_TOOL_INPUTS, parseToolInput, type LmToolInput, type LmToolName } from './core/toolInputs';
import { resolveToolPath, type ResolvedPath } from './core/toolPaths';
import { codeBlock, hooksSummary, inlineCode, previewMarkdown, textPreview } from './core/toolPreview';
import type { Ctx } from './ctx';

type HooksApi = Pick<GarudaHooksApi, 'preToolUse' | 'postToolUse' | 'stop'>;
type ActionTool = Exclude<LmToolName, 'garuda_checkDone'>;

/** A valid call, ready to guard: where it acts, what hooks see, what the user is shown, and the action. */
interface Plan {
  readonly folder: vscode.Uri | undefined;
  readonly hookInput: Record<string, unknown>;
  /** Markdown: exactly what will happen. */
  readonly action: string;
  /** Markdown: the progress line while it runs. */
  readonly progress: string;
  /** Set for calls with side effects: the user confirms them, seeing the action and the hooks. */
  readonly confirmTitle?: string;
  run(signal: AbortSignal): Promise<ActionResult>;
}

/** A plan, or why there is none, for the model. */
type Planner<N extends ActionTool> = (input: LmToolInput<N>) => Promise<Plan | string>;

/** The tool's name, and the agent name its stop runs are counted under. */
const CHECK_DONE_AGENT = 'garuda_checkDone';

/** The guarded tools agents use in place of their own, so every call goes through the user's hooks. */
export function registerLanguageModelTools(ctx: Ctx, api: HooksApi): void {
  const planners: { [N in ActionTool]: Planner<N> } = {
    garuda_runCommand: planCommand,
    garuda_readFile: ({ path }) => planFile(path, (place) => ({
      hookInput: { path: place.path },
      action: `Read ${inlineCode(place.display)}.`,
      progress: `Reading ${inlineCode(place.display)}`,
      run: () => readFileAction(place.path, place.display),
    })),
    garuda_writeFile: ({ path, content }) => planFile(path, (place) => unsaved(place) ?? {
      hookInput: { path: place.path, content },
      action: `Write ${inlineCode(place.display)}:\n\n${textPreview(content)}`,
      progress: `Writing ${inlineCode(place.display)}`,
      confirmTitle: 'Write a file?',
      run: () => writeFileAction(place.path, content, place.display),
    }),
    garuda_editFile: ({ path, old_string, new_string }) => planFile(path, (place) => unsaved(place) ?? {
      hookInput: { path: place.path, old_string, new_string },
      action: `In ${inlineCode(place.display)}, replace\n\n${textPreview(old_string)}\n\nwith\n\n${textPreview(new_string)}`,
      progress: `Editing ${inlineCode(place.display)}`,
      confirmTitle: 'Edit a file?',
      run: () => editFileAction(place.path, old_string, new_string, place.display),
    }),
    garuda_fetch: async ({ url }) => ({
      folder: workspaceRoots()[0]?.uri,
      hookInput: { url },
      action: `GET ${inlineCode(cleanLine(url))}`,
      progress: `Fetching ${inlineCode(cleanLine(url, 100))}`,
      confirmTitle: 'Fetch a URL?',
      run: (signal) => fetchTextAction(url, { signal }),
    }),
  };
  for (const name of Object.keys(planners) as ActionTool[]) {
    ctx.subscriptions.push(vscode.lm.registerTool(name, new GuardedTool(ctx, api, name, planners[name] as Planner<ActionTool>)));
  }
  ctx.subscriptions.push(vscode.lm.registerTool(CHECK_DONE_AGENT, new CheckDoneTool(ctx, api)));
}

/** preToolUse hooks, the action, postToolUse hooks: the same path the API and the commands take. */
class GuardedTool<N extends ActionTool> implements vscode.LanguageModelTool<unknown> {
  constructor(
    private readonly ctx: Ctx,
    private readonly api: HooksApi,
    private readonly name: N,
    private readonly plan: Planner<N>,
  ) {}

  async prepareInvocation(options: vscode.LanguageModelToolInvocationPrepareOptions<unknown>): Promise<vscode.PreparedToolInvocation> {
    const parsed = parseToolInput(this.name, options.input);
    const plan = parsed.ok ? await this.plan(parsed.input) : undefined;
    // A bad call is reported by invoke, to the model; there is nothing to confirm.
    if (typeof plan !== 'object') return { invocationMessage: `${this.name}: checking its input` };
    const call = this.call(plan);
    const set = await this.ctx.hookSetFor(plan.folder);
    const hooks = set && [...matchingHooks(set, 'preToolUse', call).hooks, ...matchingHooks(set, 'postToolUse', call).hooks];
    const message = new vscode.MarkdownString(previewMarkdown(plan.action, hooks));
    return {
      invocationMessage: new vscode.MarkdownString(`${plan.progress} · ${hooksSummary(hooks)}`),
      ...(plan.confirmTitle !== undefined && { confirmationMessages: { title: plan.confirmTitle, message } }),
    };
  }

  invoke(options: vscode.LanguageModelToolInvocationOptions<unknown>, token: vscode.CancellationToken): Promise<vscode.LanguageModelToolResult> {
    return answer(this.ctx, this.name, async () => {
      const parsed = parseToolInput(this.name, options.input);
      if (!parsed.ok) return parsed.message;
      const plan = await this.plan(parsed.input);
      if (typeof plan === 'string') return plan;
      const call = this.call(plan);
      const pre = await this.api.preToolUse(call);
      if (pre.decision === 'deny') return blockedMessage(pre.reason ?? 'no reason given');
      if (token.isCancellationRequested) return 'Cancelled: nothing was done.';
      const abort = new AbortController();
      const listener = token.onCancellationRequested(() => abort.abort());
      const done = await plan.run(abort.signal).finally(() => listener.dispose());
      if (!done.ok) return done.text;
      const post = await this.api.postToolUse(call, done.result);
      return post.feedback ? `${done.text}\n\n${post.feedback}` : done.text;
    });
  }

  private call(plan: Plan): ToolCallRequest {
    return { tool: LM_TOOL_INPUTS[this.name].tool, input: plan.hookInput, folder: plan.folder, agent: 'garuda-lm-tools' };
  }
}

/** Stop hooks for agents without a stop event, through the API so the continuation count and cap are shared. */
class CheckDoneTool implements vscode.LanguageModelTool<unknown> {
  constructor(
    private readonly ctx: Ctx,
    private readonly api: HooksApi,
  ) {}

  async prepareInvocation(options: vscode.LanguageModelToolInvocationPrepareOptions<unknown>): Promise<vscode.PreparedToolInvocation> {
    const parsed = parseToolInput(CHECK_DONE_AGENT, options.input);
    const folder = parsed.ok ? await folderOf(parsed.input.folder) : undefined;
    const set = typeof folder === 'string' ? undefined : await this.ctx.hookSetFor(folder);
    return { invocationMessage: new vscode.MarkdownString(`Checking whether the work is done · ${hooksSummary(set && stopHooks(set))}`) };
  }

  invoke(options: vscode.LanguageModelToolInvocationOptions<unknown>): Promise<vscode.LanguageModelToolResult> {
    return answer(this.ctx, CHECK_DONE_AGENT, async () => {
      const parsed = parseToolInput(CHECK_DONE_AGENT, options.input);
      if (!parsed.ok) return parsed.message;
      const folder = await folderOf(parsed.input.folder);
      if (typeof folder === 'string') return folder;
      const stop = await this.api.stop({ agent: CHECK_DONE_AGENT, folder, ...(parsed.input.summary !== undefined && { submission: parsed.input.summary }) });
      if (stop.decision === 'allow') return 'done: no stop hook asks for more work. You may finish.';
      return `Not done yet. Keep working: ${stop.reason}\n\nThen call ${CHECK_DONE_AGENT} again (the stop hooks have sent this run back ${stop.continuations} ${stop.continuations === 1 ? 'time' : 'times'}).`;
    });
  }
}

async function planCommand({ command, cwd, timeoutMs = COMMAND_TIMEOUT_MS.default }: LmToolInput<'garuda_runCommand'>): Promise<Plan | string> {
  const place = await resolveToolPath(cwd ?? '.', workspaceRoots());
  if (!place.ok) return place.message;
  if (!(await fs.stat(place.path).then((stat) => stat.isDirectory(), () => false))) return `cwd ${place.display} is not a folder: nothing was run.`;
  return {
    folder: place.root.uri,
    hookInput: { command, cwd: place.path, timeoutMs },
    action: `Run in ${inlineCode(place.display)}, stopped after ${timeoutMs / 1000} s:\n\n${codeBlock(cleanLine(command, Number.MAX_SAFE_INTEGER), 'sh')}`,
    progress: `Running ${inlineCode(cleanLine(command, 80))}`,
    confirmTitle: 'Run a command?',
    run: (signal) => runCommandAction({ command, cwd: place.path, timeoutMs, env: terminalEnv(), signal }),
  };
}

type Place = Extract<ResolvedPath<Root>, { ok: true }>;

async function planFile(given: string, plan: (place: Place) => Omit<Plan, 'folder'> | string): Promise<Plan | string> {
  const place = await resolveToolPath(given, workspaceRoots());
  if (!place.ok) return place.message;
  const planned = plan(place);
  return typeof planned === 'string' ? planned : { ...planned, folder: place.root.uri };
}

/** Writing under an editor with unsaved changes would make the user choose between two versions. */
function unsaved(place: Place): string | undefined {
  const dirty = vscode.workspace.textDocuments.some((doc) => doc.isDirty && doc.uri.scheme === 'file' && doc.uri.fsPath === place.path);
  return dirty ? `${place.display} has unsaved changes in the editor: nothing was done. Ask the user to save or revert it first.` : undefined;
}

async function folderOf(given: string | undefined): Promise<vscode.Uri | undefined | string> {
  if (given === undefined) return undefined;
  const place = await resolveToolPath(given, workspaceRoots());
  return place.ok ? place.root.uri : place.message;
}

interface Root {
  readonly name: string;
  readonly path: string;
  readonly uri: vscode.Uri;
}

function workspaceRoots(): Root[] {
  return (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === 'file').map((f) => ({ name: f.name, path: f.uri.fsPath, uri: f.uri }));
}

/** Every answer is text for the model: an unexpected failure too, with the details in the log. */
async function answer(ctx: Ctx, name: string, work: () => Promise<string>): Promise<vscode.LanguageModelToolResult> {
  const text = await work().catch((error: Error) => {
    ctx.log.error(`${name} failed: ${error.stack ?? error.message}`);
    return `${name} failed: ${error.message}`;
  });
  return new vscode.LanguageModelToolResult([new vscode.LanguageModelTextPart(text)]);
}
