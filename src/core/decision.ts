import { cleanLine, cleanText, wrapFeedback } from './clean';
import type { ExecResult } from './executor';
import type { Hook, HookEvent } from './hookConfig';

/** What one hook run decided: allow, deny, feedback, continue, or error (the hook itself failed). */
export type RunDecision = 'allow' | 'deny' | 'feedback' | 'continue' | 'error';

/** What one hook run decided, with its output cleaned for the model and the user. */
export interface HookRun {
  readonly event: HookEvent;
  readonly source: Hook['source'];
  readonly index: number;
  readonly command: string;
  readonly decision: RunDecision;
  readonly exitCode: number | null;
  readonly signal: string | null;
  readonly timedOut: boolean;
  readonly durationMs: number;
  /** For the model: why a call was blocked or the agent sent back. */
  readonly reason?: string;
  /** For the model: `<hook_feedback>` text to append to a tool result. */
  readonly feedback?: string;
  /** For the user: what went wrong with the hook itself. */
  readonly warning?: string;
  /** Set when the team policy refused to run the hook. */
  readonly refusedByPolicy?: boolean;
  readonly stdout: string;
  readonly stderr: string;
}

/** The README's table: exit 0 goes on, exit 2 acts, anything else is a failure of the hook. */
export function decide(hook: Hook, result: ExecResult): HookRun {
  const stdout = cleanText(result.stdout);
  const stderr = cleanText(result.stderr);
  const base = {
    event: hook.event,
    source: hook.source,
    index: hook.index,
    command: hook.command,
    exitCode: result.exitCode,
    signal: result.signal,
    timedOut: result.timedOut,
    durationMs: Math.round(result.durationMs),
    stdout,
    stderr,
  };
  const failure = describeFailure(result);
  if (failure) return failed(hook, base, failure);
  const json = readJsonOutput(result);
  // Exit 2 acts whatever stdout holds; only an exit 0 depends on reading a JSON answer.
  if (json?.kind === 'invalid' && result.exitCode !== 2) return failed(hook, base, json.problem);
  const answer = json?.kind === 'json' ? json : undefined;

  // Parsed JSON is an answer, not a message: the model gets its reason, never the raw object.
  const reason = stderr || answer?.reason || (json ? '' : stdout);
  const asks = result.exitCode === 2 || answer?.blocks === true;
  switch (hook.event) {
    case 'preToolUse':
      return asks
        ? { ...base, decision: 'deny', reason: reason || `the hook gave no reason (${cleanLine(hook.command)})` }
        : { ...base, decision: 'allow' };
    case 'postToolUse': {
      const text = asks ? reason : answer?.context;
      return text ? { ...base, decision: 'feedback', feedback: wrapFeedback(text) } : { ...base, decision: 'allow' };
    }
    case 'stop':
      return asks ? { ...base, decision: 'continue', reason: reason || 'A stop hook asked to keep working.' } : { ...base, decision: 'allow' };
  }
}

/** A hook the policy or the system would not run, reported in the same shape as one that failed. */
export function refused(hook: Hook, why: string, byPolicy: boolean): HookRun {
  const base = { event: hook.event, source: hook.source, index: hook.index, command: hook.command, exitCode: null, signal: null, timedOut: false, durationMs: 0, stdout: '', stderr: '' };
  return { ...failed(hook, base, why), ...(byPolicy && { refusedByPolicy: true }) };
}

type RunBase = Omit<HookRun, 'decision'>;

/** Fail closed: a broken guard blocks unless it says `onFailure: "allow"`; other hooks only warn. */
function failed(hook: Hook, base: RunBase, failure: string): HookRun {
  const details = base.stderr ? `: ${firstLines(base.stderr)}` : '';
  const who = `${hook.event} hook (${hook.source}) ${cleanLine(hook.command, 120)}`;
  if (hook.event === 'preToolUse' && hook.onFailure === 'block') {
    return {
      ...base,
      decision: 'deny',
      reason: `A guard failed (${failure}), and guards block the call when they fail${details}`,
      warning: `${who} failed (${failure}); the call was blocked (onFailure: "block")${details}`,
    };
  }
  const outcome = hook.event === 'preToolUse' ? '; the call went ahead (onFailure: "allow")' : '';
  return { ...base, decision: 'error', warning: `${who} failed (${failure})${outcome}${details}` };
}

function describeFailure(result: ExecResult): string | undefined {
  if (result.spawnError) return `could not start: ${result.spawnError}`;
  if (result.timedOut) return 'timed out';
  if (result.signal) return `killed by ${result.signal}`;
  if (result.exitCode === 127) return 'exit 127, command not found';
  if (result.exitCode !== 0 && result.exitCode !== 2) return `exit ${result.exitCode}`;
  return undefined;
}

interface JsonOutput {
  readonly kind: 'json';
  readonly blocks: boolean;
  readonly reason?: string;
  readonly context?: string;
}

/**
 * Claude Code's JSON answers: `permissionDecision: "deny"` or `decision: "block"` block (allow and
 * ask are ignored: hooks never approve). Output that starts like JSON but does not parse, or was cut
 * at the output limit, is a failure: a guard whose deny was lost must not pass the call.
 */
function readJsonOutput(result: ExecResult): JsonOutput | { kind: 'invalid'; problem: string } | undefined {
  const text = result.stdout.trim();
  if (!text.startsWith('{')) return undefined;
  if (result.stdoutTruncated) return { kind: 'invalid', problem: 'its JSON output was cut short (over the output limit, or still being written when the hook exited)' };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { kind: 'invalid', problem: 'its output starts like JSON but is not valid JSON' };
  }
  const record = (value ?? {}) as Record<string, unknown>;
  const specific = (record.hookSpecificOutput ?? {}) as Record<string, unknown>;
  const denies = specific.permissionDecision === 'deny' || record.decision === 'block' || record.decision === 'deny';
  const reason = asText(specific.permissionDecisionReason) ?? asText(record.reason);
  const context = asText(specific.additionalContext);
  return {
    kind: 'json',
    blocks: denies,
    ...(reason !== undefined && { reason: cleanText(reason) }),
    ...(context !== undefined && { context: cleanText(context) }),
  };
}

const asText = (value: unknown): string | undefined => (typeof value === 'string' && value.trim() ? value : undefined);

function firstLines(text: string): string {
  const lines = text.split('\n').slice(0, 3).join(' ⏎ ');
  return lines.length > 300 ? `${lines.slice(0, 300)}…` : lines;
}
