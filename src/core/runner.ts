import type { AuditLog, HookRunEntry } from './audit';
import { cleanText } from './clean';
import { decide, refused, type HookRun } from './decision';
import { runCommand, terminalEnv, type ExecRequest, type ExecResult } from './executor';
import type { Hook } from './hookConfig';
import { hookSetWarnings, type HookSet } from './hookSet';
import { policyRefusal } from './policy';
import { createRunFolder } from './runFolder';
import { withSandboxedCommand, type SandboxInfo } from './sandbox';
import type { WarmSandboxes } from './warmSandbox';
import { matchingHooks, stopHooks } from './matchingHooks';
import type { ToolTarget } from './toolNames';

/** A tool call as an agent describes it. */
export interface ToolCall {
  readonly tool: string;
  readonly input: unknown;
  readonly toolCallId?: string;
  readonly step?: number;
  readonly subagent?: string;
  readonly agent?: string;
}

/** An agent that wants to finish. */
export interface StopRequest {
  readonly status?: string;
  readonly submission?: string;
  /** How many times stop hooks already sent this run back to work. */
  readonly continuations: number;
}

interface OutcomeBase {
  readonly warnings: readonly string[];
  readonly runs: readonly HookRun[];
}
interface ToolOutcomeBase extends OutcomeBase {
  readonly tool: string;
  /** What the call acted on, so feedback can be shown on the file it is about. */
  readonly target: ToolTarget;
}
export interface PreToolUseOutcome extends ToolOutcomeBase {
  readonly event: 'preToolUse';
  readonly decision: 'allow' | 'deny';
  readonly reason?: string;
}
export interface PostToolUseOutcome extends ToolOutcomeBase {
  readonly event: 'postToolUse';
  readonly decision: 'allow' | 'feedback';
  readonly feedback?: string;
}
export interface StopOutcome extends OutcomeBase {
  readonly event: 'stop';
  readonly decision: 'allow' | 'continue';
  readonly reason?: string;
  /** The count after this decision: one more when the agent is sent back. */
  readonly continuations: number;
}
export type HookOutcome = PreToolUseOutcome | PostToolUseOutcome | StopOutcome;

export interface HookRunner {
  preToolUse(set: HookSet, call: ToolCall): Promise<PreToolUseOutcome>;
  postToolUse(set: HookSet, call: ToolCall, result: unknown): Promise<PostToolUseOutcome>;
  stop(set: HookSet, request: StopRequest): Promise<StopOutcome>;
}

export interface RunnerDeps {
  /**
   * Where hooks run (see `detectSandbox`); the set's team policy may require one. A function is asked
   * only when a hook is about to run: detecting starts a trial sandbox, which a call that runs no hook
   * should not wait for.
   */
  readonly sandbox: SandboxInfo | (() => SandboxInfo);
  readonly audit?: AuditLog;
  /** The environment hooks inherit; defaults to this process's. */
  readonly env?: NodeJS.ProcessEnv;
  readonly exec?: (request: ExecRequest) => Promise<ExecResult>;
  /** Long-lived bwrap sandboxes for a long-lived process (the editor); without them each run starts its own. */
  readonly warmSandboxes?: WarmSandboxes;
  /** Called after every event that ran at least one hook. */
  readonly onDidRun?: (outcome: HookOutcome, set: HookSet) => void;
  /** Called when the audit log cannot be written: a lost entry must not go unnoticed. */
  readonly onAuditError?: (error: Error) => void;
}

const AUDIT_OUTPUT_CHARS = 2000;

/** Which call a run belongs to and who made it, for the audit log. */
interface AuditOrigin {
  readonly tool: string;
  readonly toolCallId: string | undefined;
  readonly agent: string | undefined;
}

export function createHookRunner(deps: RunnerDeps): HookRunner {
  const exec = deps.exec ?? runCommand;
  const env = inheritedEnv(terminalEnv(deps.env ?? process.env));
  const sandbox = (): SandboxInfo => (typeof deps.sandbox === 'function' ? deps.sandbox() : deps.sandbox);

  async function runHooks(set: HookSet, hooks: readonly Hook[], payload: Record<string, unknown>, vars: Record<string, string>, origin?: AuditOrigin): Promise<HookRun[]> {
    // Every matching hook runs at once; Promise.all keeps config order for the results.
    const runs = await Promise.all(hooks.map((hook) => runOne(set, hook, payload, vars)));
    runs.forEach((run, i) => audit(set, hooks[i]!, run, origin));
    return runs;
  }

  async function runOne(set: HookSet, hook: Hook, payload: Record<string, unknown>, vars: Record<string, string>): Promise<HookRun> {
    // The team policy first: a refused hook never starts.
    const refusal = policyRefusal(set.policy, hook, sandbox());
    if (refusal) return refused(hook, refusal, true);
    const input = JSON.stringify(payload);
    const box = sandbox();
    let folder: ReturnType<typeof createRunFolder> | undefined;
    try {
      if (box.name === 'bwrap' && deps.warmSandboxes) {
        const key = { program: box.program, root: set.root, network: hook.network, source: hook.source };
        const result = await deps.warmSandboxes.run(key, { command: hook.command, env: { ...env, ...vars, GARUDA_PROJECT_DIR: set.root }, stdin: input, timeoutMs: hook.timeoutMs });
        if (result) return decide(hook, result);
      }
      // A sandbox gets a fresh folder per run as the hook's only writable temp folder.
      folder = createRunFolder(input, box.available);
      const { inputFile, dir } = folder;
      const running = withSandboxedCommand(box, hook.command, { root: set.root, tempDir: dir, network: hook.network }, (sandboxed) => exec({
        command: hook.command,
        argv: sandboxed.argv,
        cwd: set.root,
        // One copy of the environment per run: it is the largest object on this path.
        env: { ...env, ...vars, ...sandboxed.env, GARUDA_HOOK_INPUT: inputFile, GARUDA_PROJECT_DIR: set.root },
        stdin: input,
        timeoutMs: hook.timeoutMs,
        fds: sandboxed.fds,
      }));
      return decide(hook, await running);
    } catch (error) {
      // A hook that cannot even be started (no temp folder, a NUL byte in a variable) fails like any
      // other broken hook: a guard blocks, and the run is still audited.
      return refused(hook, `could not start: ${(error as Error).message}`, false);
    } finally {
      await folder?.remove();
    }
  }

  function audit(set: HookSet, hook: Hook, run: HookRun, origin: AuditOrigin | undefined): void {
    if (!deps.audit) return;
    const entry: HookRunEntry = {
      kind: 'hook',
      time: new Date().toISOString(),
      event: hook.event,
      ...(origin && { tool: origin.tool }),
      ...(origin?.toolCallId !== undefined && { toolCallId: origin.toolCallId }),
      ...(origin?.agent !== undefined && { agent: origin.agent }),
      source: hook.source,
      root: set.root,
      command: hook.command,
      durationMs: run.durationMs,
      exitCode: run.exitCode,
      signal: run.signal,
      timedOut: run.timedOut,
      decision: run.refusedByPolicy ? 'deny_policy' : run.decision,
      risk: hook.network ? 'high' : 'normal',
      sandbox: sandbox().name,
      ...(run.reason !== undefined && { reason: run.reason }),
      ...(run.stdout && { stdout: cleanText(run.stdout, AUDIT_OUTPUT_CHARS) }),
      ...(run.stderr && { stderr: cleanText(run.stderr, AUDIT_OUTPUT_CHARS) }),
    };
    deps.audit.append(entry).catch((error: Error) => deps.onAuditError?.(error));
  }

  function toolEvent(set: HookSet, event: 'preToolUse' | 'postToolUse', call: ToolCall, result?: unknown) {
    const { tool, target, hooks } = matchingHooks(set, event, call);
    const payload = {
      schemaVersion: 1,
      event,
      tool,
      ...(call.toolCallId !== undefined && { toolCallId: call.toolCallId }),
      input: call.input,
      target,
      ...(event === 'postToolUse' && { result }),
      root: set.root,
      ...(call.step !== undefined && { step: call.step }),
      ...(call.subagent !== undefined && { subagent: call.subagent }),
    };
    return { tool, target, hooks, payload, vars: { GARUDA_HOOK_EVENT: event, GARUDA_TOOL: tool, ...targetVars(target) } };
  }

  function finish<T extends HookOutcome>(set: HookSet, outcome: T): T {
    if (outcome.runs.length > 0) deps.onDidRun?.(outcome, set);
    return outcome;
  }

  return {
    async preToolUse(set, call) {
      const { tool, target, hooks, payload, vars } = toolEvent(set, 'preToolUse', call);
      const runs = await runHooks(set, hooks, payload, vars, { tool, toolCallId: call.toolCallId, agent: call.agent });
      const reasons = runs.filter((run) => run.decision === 'deny').map((run) => run.reason!);
      const warnings = [...hookSetWarnings(set), ...runWarnings(runs)];
      return finish(set, reasons.length > 0
        ? { event: 'preToolUse', tool, target, decision: 'deny', reason: reasons.join('\n\n'), warnings, runs }
        : { event: 'preToolUse', tool, target, decision: 'allow', warnings, runs });
    },

    async postToolUse(set, call, result) {
      const { tool, target, hooks, payload, vars } = toolEvent(set, 'postToolUse', call, result);
      const runs = await runHooks(set, hooks, payload, vars, { tool, toolCallId: call.toolCallId, agent: call.agent });
      const feedback = runs.flatMap((run) => (run.feedback ? [run.feedback] : []));
      const warnings = [...hookSetWarnings(set), ...runWarnings(runs)];
      return finish(set, feedback.length > 0
        ? { event: 'postToolUse', tool, target, decision: 'feedback', feedback: feedback.join('\n'), warnings, runs }
        : { event: 'postToolUse', tool, target, decision: 'allow', warnings, runs });
    },

    async stop(set, request) {
      const hooks = stopHooks(set);
      const payload = {
        schemaVersion: 1,
        event: 'stop',
        status: request.status ?? 'completed',
        submission: request.submission ?? '',
        continuations: request.continuations,
        stopHookActive: request.continuations > 0,
        root: set.root,
      };
      const runs = await runHooks(set, hooks, payload, { GARUDA_HOOK_EVENT: 'stop' });
      const reasons = runs.filter((run) => run.decision === 'continue').map((run) => run.reason!);
      const warnings = [...hookSetWarnings(set), ...runWarnings(runs)];
      if (reasons.length === 0) return finish(set, { event: 'stop', decision: 'allow', continuations: request.continuations, warnings, runs });
      if (request.continuations >= set.maxStopContinuations) {
        warnings.push(`Stop hooks asked to keep working, but this run already went back ${request.continuations} times (maxStopContinuations ${set.maxStopContinuations}): the run ends.`);
        return finish(set, { event: 'stop', decision: 'allow', continuations: request.continuations, warnings, runs });
      }
      return finish(set, { event: 'stop', decision: 'continue', reason: reasons.join('\n\n'), continuations: request.continuations + 1, warnings, runs });
    },
  };
}

function targetVars(target: ToolTarget): Record<string, string> {
  switch (target.kind) {
    case 'command':
      return { GARUDA_COMMAND: target.command };
    case 'path':
      return { GARUDA_FILE: target.path };
    case 'url':
      return { GARUDA_URL: target.url };
    case 'none':
      return {};
  }
}

/** The per-call variables come only from this call, never from whatever started the editor or CLI. */
function inheritedEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const perCall = /^GARUDA_(HOOK_EVENT|TOOL|FILE|COMMAND|URL|HOOK_INPUT|PROJECT_DIR)$/;
  return Object.fromEntries(Object.entries(env).filter(([name]) => !perCall.test(name)));
}

function runWarnings(runs: readonly HookRun[]): string[] {
  return runs.flatMap((run) => (run.warning ? [run.warning] : []));
}
