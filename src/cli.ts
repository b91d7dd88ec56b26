import { constants } from 'node:os';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { createAuditLog, type AuditEntry } from './core/audit';
import { cleanLine } from './core/clean';
import { CONSENT_QUESTION, describeHook, readTrustStore, rememberConsent, revokeConsent } from './core/consent';
import { consentDetailWithChanges } from './core/consentDiff';
import { formatProblem, HOOK_EVENTS, type HookEvent } from './core/hookConfig';
import { hookSetWarnings, loadHookSet, type HookSet } from './core/hookSet';
import { garudaHome } from './core/paths';
import { describePolicy, policyRefusal } from './core/policy';
import { createHookRunner, type HookOutcome } from './core/runner';
import { detectSandbox, sandboxLine } from './core/sandbox';

const USAGE = `Usage: garuda-hooks <command> [options]

  check --event preToolUse|postToolUse|stop [--root DIR] [--tool NAME] [--input JSON]
        [--result JSON] [--continuations N] [--json]
        Run the hooks once, as an agent's call would. Exit 2: denied or sent back; 1: bad usage or config.
  list  [--root DIR] [--json]         The hooks in force, their consent, the sandbox, the team policy
                                      and every problem.
  trust [--root DIR] [--remember | --revoke]
        Show what the project's hooks would run; remember or revoke your consent.
  audit [--tail N] [--json]           The newest entries of the audit log.

--root defaults to the current folder. User hooks: $GARUDA_HOME/hooks.json (default ~/.garuda).
Team policy: $GARUDA_POLICY, else /etc/garuda/policy.json (macOS: /Library/Application Support/Garuda/,
Windows: %ProgramData%\\Garuda\\).`;

/** A mistake in how the CLI was called: exit 1 with the message and no stack. */
class UsageError extends Error {}

const commands: Record<string, (argv: string[]) => Promise<number>> = { check, list, trust, audit };

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    console.log(USAGE);
    return name === undefined ? 1 : 0;
  }
  const command = commands[name];
  if (!command) throw new UsageError(`unknown command "${cleanLine(name)}"`);
  return command(rest);
}

function parse<T extends NonNullable<ParseArgsConfig['options']>>(argv: string[], options: T) {
  try {
    return parseArgs({ args: argv, options: { ...options, root: { type: 'string' }, json: { type: 'boolean' } }, strict: true, allowPositionals: false }).values;
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

async function loadSet(root: string | undefined): Promise<HookSet> {
  return loadHookSet({ home: garudaHome(), root: root ?? process.cwd() });
}

async function check(argv: string[]): Promise<number> {
  const values = parse(argv, {
    event: { type: 'string' },
    tool: { type: 'string' },
    input: { type: 'string' },
    result: { type: 'string' },
    continuations: { type: 'string' },
  });
  const event = values.event as HookEvent | undefined;
  if (!event || !HOOK_EVENTS.includes(event)) throw new UsageError(`--event must be one of ${HOOK_EVENTS.join(', ')}`);
  if (event !== 'stop' && !values.tool) throw new UsageError(`--tool is required for ${event}`);
  const input = parseJsonOption('--input', values.input as string | undefined, {});
  const set = await loadSet(values.root as string | undefined);
  const log = createAuditLog(garudaHome());
  const runner = createHookRunner({
    sandbox: detectSandbox,
    audit: log,
    onAuditError: (error) => console.error(`garuda-hooks: the audit log could not be written: ${error.message}`),
  });
  let outcome: HookOutcome;
  if (event === 'stop') {
    const continuations = Number(values.continuations ?? 0);
    if (!Number.isInteger(continuations) || continuations < 0) throw new UsageError('--continuations must be a whole number ≥ 0');
    const stop = (input ?? {}) as { status?: string; submission?: string };
    outcome = await runner.stop(set, { ...stop, continuations });
  } else {
    const call = { tool: values.tool as string, input };
    outcome = event === 'preToolUse'
      ? await runner.preToolUse(set, call)
      : await runner.postToolUse(set, call, parseJsonOption('--result', values.result as string | undefined, null));
  }
  // Audit lines are written in the background during a run; the process must not exit before they land.
  await log.flush();
  if (values.json) console.log(JSON.stringify(outcomeJson(outcome)));
  else printOutcome(outcome);
  if (outcome.decision === 'deny' || outcome.decision === 'continue') return 2;
  return isBroken(set) ? 1 : 0;
}

/** A hooks file with problems or a team policy that cannot be used: exit 1. */
function isBroken(set: HookSet): boolean {
  return set.problems.length > 0 || set.policy.problem !== undefined;
}

function outcomeJson(outcome: HookOutcome) {
  return {
    event: outcome.event,
    decision: outcome.decision,
    reason: 'reason' in outcome ? (outcome.reason ?? null) : null,
    feedback: 'feedback' in outcome ? (outcome.feedback ?? null) : null,
    ...(outcome.event === 'stop' && { continuations: outcome.continuations }),
    warnings: outcome.warnings,
    runs: outcome.runs.map((run) => ({
      source: run.source,
      command: run.command,
      decision: run.decision,
      exitCode: run.exitCode,
      signal: run.signal,
      timedOut: run.timedOut,
      durationMs: run.durationMs,
    })),
  };
}

function printOutcome(outcome: HookOutcome): void {
  console.log(`${outcome.event}: ${outcome.decision}${outcome.runs.length === 0 ? ' (no hook matched)' : ''}`);
  for (const run of outcome.runs) {
    const status = run.timedOut ? 'timed out' : run.signal ? run.signal : `exit ${run.exitCode}`;
    console.log(`  ${run.decision.padEnd(8)} ${run.source.padEnd(7)} ${status}, ${run.durationMs} ms  ${cleanLine(run.command, 100)}`);
  }
  if ('reason' in outcome && outcome.reason) console.log(`reason:\n${outcome.reason}`);
  if ('feedback' in outcome && outcome.feedback) console.log(outcome.feedback);
  for (const warning of outcome.warnings) console.error(`warning: ${warning}`);
}

async function list(argv: string[]): Promise<number> {
  const values = parse(argv, {});
  const set = await loadSet(values.root as string | undefined);
  const sandbox = detectSandbox();
  const projectActive = set.projectConsent === 'allowed';
  const hooks = [...set.user.hooks, ...set.project.hooks].map((hook) => ({
    source: hook.source,
    event: hook.event,
    index: hook.index,
    command: hook.command,
    tools: hook.tools,
    network: hook.network,
    timeoutMs: hook.timeoutMs,
    onFailure: hook.onFailure,
    active: hook.source === 'user' || projectActive,
    refused: policyRefusal(set.policy, hook, sandbox) ?? null,
  }));
  if (values.json) {
    const { disallowedCommands, ...policy } = set.policy;
    console.log(JSON.stringify({
      root: set.root,
      sandbox,
      policy: { ...policy, disallowedCommands: disallowedCommands.map((entry) => entry.rule), text: describePolicy(set.policy) },
      user: { file: set.user.file, exists: set.user.exists },
      project: { file: set.project.file, exists: set.project.exists, consent: set.projectConsent, hash: set.projectHash ?? null },
      hooks,
      problems: set.problems.map((problem) => ({ ...problem, text: formatProblem(problem) })),
      notices: set.notices,
    }));
    return isBroken(set) ? 1 : 0;
  }
  console.log(`User hooks: ${set.user.file}${set.user.exists ? '' : ' (none)'}`);
  console.log(`Project hooks: ${set.project.file}${set.project.exists ? ` (consent: ${set.projectConsent})` : ' (none)'}`);
  console.log(sandboxLine(sandbox));
  console.log(describePolicy(set.policy));
  for (const hook of hooks) {
    console.log(`\n[${hook.source}${hook.active ? '' : ', not active'}] ${describeHook(hook)}\n    ${cleanLine(hook.command)}`);
    if (hook.refused) console.log(`    ${hook.refused}`);
  }
  const warnings = hookSetWarnings(set);
  if (warnings.length > 0) console.log(`\nProblems:\n${warnings.map((w) => `  ${w}`).join('\n')}`);
  return isBroken(set) ? 1 : 0;
}

async function trust(argv: string[]): Promise<number> {
  const values = parse(argv, { remember: { type: 'boolean' }, revoke: { type: 'boolean' } });
  if (values.remember && values.revoke) throw new UsageError('--remember and --revoke exclude each other');
  const set = await loadSet(values.root as string | undefined);
  const home = garudaHome();
  const log = createAuditLog(home);
  if (values.revoke) {
    const had = await revokeConsent(home, set.root);
    if (had) await log.append({ kind: 'consent', time: new Date().toISOString(), root: set.root, decision: 'revoke', hash: set.projectHash ?? '' });
    console.log(had ? `Consent for ${set.root} revoked.` : `No consent was stored for ${set.root}.`);
    return 0;
  }
  if (!set.projectHash) {
    console.log(`No project hooks to review in ${set.project.file}.`);
    for (const problem of set.project.problems) console.error(`problem: ${formatProblem(problem)}`);
    return set.project.problems.length > 0 ? 1 : 0;
  }
  if (set.projectConsent === 'policy') {
    console.log(`${describePolicy(set.policy)}\nThe hooks in ${set.project.file} never run under this policy: there is nothing to allow.`);
    return values.remember ? 1 : 0;
  }
  const state = set.projectConsent === 'allowed' || set.projectConsent === 'changed' ? set.projectConsent : 'unreviewed';
  const { store } = await readTrustStore(home);
  console.log(`${CONSENT_QUESTION}\n\n${consentDetailWithChanges(set.project, state, detectSandbox(), set.policy, store.reviewed[set.root])}`);
  if (values.remember) {
    await rememberConsent(home, set.root, set.projectHash, set.project.document);
    await log.append({ kind: 'consent', time: new Date().toISOString(), root: set.root, decision: 'remember', hash: set.projectHash });
    console.log(`\nAllowed: these hooks now run for ${set.root} until the file changes.`);
  } else if (state === 'allowed') {
    console.log('\nYou allowed these hooks. Revoke with --revoke.');
  } else {
    console.log('\nRun again with --remember to allow them.');
  }
  return 0;
}

async function audit(argv: string[]): Promise<number> {
  const values = parse(argv, { tail: { type: 'string' } });
  const count = Number(values.tail ?? 20);
  if (!Number.isInteger(count) || count < 1) throw new UsageError('--tail must be a whole number ≥ 1');
  const entries = await createAuditLog(garudaHome()).tail(count);
  if (values.json) {
    for (const entry of entries) console.log(JSON.stringify(entry));
    return 0;
  }
  for (const entry of entries) console.log(formatAuditEntry(entry));
  return 0;
}

function formatAuditEntry(entry: AuditEntry): string {
  if (entry.kind === 'consent') return `${entry.time}  consent ${entry.decision.padEnd(10)} ${cleanLine(entry.root)}`;
  const status = entry.timedOut ? 'timeout' : entry.signal ?? `exit ${entry.exitCode}`;
  const tool = entry.tool ? ` ${entry.tool}` : '';
  return `${entry.time}  ${entry.decision.padEnd(11)} ${entry.event}${tool}  ${entry.source}  ${status}  ${entry.durationMs} ms${entry.risk === 'high' ? '  risk:high' : ''}  ${cleanLine(entry.command, 100)}`;
}

function parseJsonOption(flag: string, text: string | undefined, fallback: unknown): unknown {
  if (text === undefined) return fallback;
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new UsageError(`${flag} is not valid JSON: ${(error as Error).message}`);
  }
}

// A signal's default action ends the CLI without 'exit', where the executor kills the hooks' process
// groups; unsandboxed hooks would keep running. Only here: the extension host keeps Node's defaults.
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  process.once(signal, () => process.exit(128 + constants.signals[signal]));
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    const message = error instanceof Error ? error.message : String(error);
    console.error(`garuda-hooks: ${message}`);
    if (error instanceof UsageError) console.error("Run 'garuda-hooks --help' for usage.");
    process.exitCode = 1;
  },
);
