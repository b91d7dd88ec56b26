// The team policy: a file an administrator manages that limits which hooks may run on this machine.
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import * as z from 'zod/mini';
import { cleanLine } from './clean';
import { describeIssue, formatProblem, type ConfigProblem, type HookDefinition } from './hookConfig';
import { parseJsonDocument } from './jsonDocument';
import { lazy } from './lazy';
import { displayPath } from './paths';
import { compileRules, parseRule, type CallMatcher } from './rules';
import type { SandboxInfo } from './sandbox';
import { BASH_TOOL } from './toolNames';

/** Where the policy is read: `$GARUDA_POLICY` (explicit) or the platform's managed path. */
export interface PolicyLocation {
  readonly file: string;
  readonly explicit: boolean;
}

/** A `disallowedCommands` rule, compiled once. */
export interface DisallowedCommand {
  readonly rule: string;
  readonly matcher: CallMatcher;
}

export interface TeamPolicy {
  readonly file: string;
  readonly exists: boolean;
  /** Why the policy cannot be used, naming the file: then every hook is refused. */
  readonly problem?: string;
  /** Without an OS sandbox every hook is refused. */
  readonly requireSandbox: boolean;
  /** Rules in the hook rule syntax, matched against each hook's own command. */
  readonly disallowedCommands: readonly DisallowedCommand[];
  /** False: project hooks never run and never ask for consent. */
  readonly allowProjectHooks: boolean;
  /** False: hooks that ask for `"network": true` are refused. */
  readonly allowNetwork: boolean;
}

const policySchema = lazy(() =>
  z.strictObject({
    $schema: z.optional(z.string()),
    requireSandbox: z._default(z.boolean(), false).check(z.describe('Refuse every hook when this machine has no OS sandbox.')),
    disallowedCommands: z
      ._default(z.array(z.string()), [])
      .check(z.describe('Bash rules such as "bash(curl *)": a hook whose own command matches one, in any part, is refused.')),
    allowProjectHooks: z._default(z.boolean(), true).check(z.describe("False: a project's .garuda/hooks.json never runs and never asks.")),
    allowNetwork: z._default(z.boolean(), true).check(z.describe('False: hooks with "network": true are refused.')),
  }),
);

const NO_RESTRICTIONS = { requireSandbox: false, disallowedCommands: [], allowProjectHooks: true, allowNetwork: true } as const;

export function policyLocation(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): PolicyLocation {
  const configured = env.GARUDA_POLICY?.trim();
  if (configured) return { file: path.resolve(configured), explicit: true };
  switch (platform) {
    case 'darwin':
      return { file: '/Library/Application Support/Garuda/policy.json', explicit: false };
    case 'win32':
      return { file: path.win32.join(env.ProgramData ?? 'C:\\ProgramData', 'Garuda', 'policy.json'), explicit: false };
    default:
      return { file: '/etc/garuda/policy.json', explicit: false };
  }
}

/** No file at the managed path is no policy. Anything else that goes wrong is a broken policy, never none. */
export async function loadTeamPolicy(location: PolicyLocation): Promise<TeamPolicy> {
  const { file } = location;
  let text: string;
  try {
    text = await fs.readFile(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if ((code === 'ENOENT' || code === 'ENOTDIR') && !location.explicit) return { file, exists: false, ...NO_RESTRICTIONS };
    if (code === 'ENOENT') return broken(file, [{ file, path: [], message: 'named by $GARUDA_POLICY, does not exist' }], false);
    return broken(file, [{ file, path: [], message: `cannot be read: ${(error as Error).message}` }]);
  }
  return parseTeamPolicy(text, file);
}

export function parseTeamPolicy(text: string, file: string): TeamPolicy {
  const json = parseJsonDocument(text);
  if (!json.ok) return broken(file, [{ file, path: [], message: json.message }]);
  const parsed = policySchema().safeParse(json.value, { reportInput: true });
  if (!parsed.success) {
    return broken(file, parsed.error.issues.map((issue) => {
      const at = issue.path.filter((p): p is string | number => typeof p !== 'symbol');
      return issue.code === 'unrecognized_keys'
        ? { file, path: at, message: `unknown key${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map((k) => `"${k}"`).join(', ')} (expected ${Object.keys(NO_RESTRICTIONS).join(', ')})` }
        : { file, path: at, message: describeIssue(issue) };
    }));
  }
  const problems: ConfigProblem[] = [];
  const disallowedCommands: DisallowedCommand[] = [];
  parsed.data.disallowedCommands.forEach((rule, i) => {
    const matcher = compileBashRule(rule);
    if (typeof matcher === 'string') problems.push({ file, path: ['disallowedCommands', i], message: matcher });
    else disallowedCommands.push({ rule, matcher });
  });
  if (problems.length > 0) return broken(file, problems);
  const { requireSandbox, allowProjectHooks, allowNetwork } = parsed.data;
  return { file, exists: true, requireSandbox, disallowedCommands, allowProjectHooks, allowNetwork };
}

/** Why the policy refuses to run `hook`, in words that name the file and the rule; undefined when it may run. */
export function policyRefusal(policy: TeamPolicy, hook: Pick<HookDefinition, 'command' | 'network'>, sandbox: SandboxInfo): string | undefined {
  if (policy.problem) return `refused by the team policy, which cannot be used (${policy.problem})`;
  const refuse = (rule: string) => `refused by the team policy (${displayPath(policy.file)}: ${rule})`;
  if (policy.requireSandbox && !sandbox.available) return refuse(`requireSandbox, and there is no OS sandbox: ${sandbox.reason}`);
  if (!policy.allowNetwork && hook.network) return refuse('allowNetwork is false, and this hook asks for "network": true');
  // The hook's own command, seen as the bash call it is: compound parts count, as in hook rules.
  const call = { tool: BASH_TOOL, target: { kind: 'command' as const, command: hook.command } };
  const match = policy.disallowedCommands.find((entry) => entry.matcher.matches(call));
  return match ? refuse(`disallowedCommands ${JSON.stringify(match.rule)}`) : undefined;
}

/** The policy in force, one line for `list`, `trust`, the consent modal and the tree. */
export function describePolicy(policy: TeamPolicy): string {
  if (policy.problem) return `Team policy: ${policy.problem}. Every hook is refused until the file is fixed.`;
  const file = displayPath(policy.file);
  if (!policy.exists) return `Team policy: none (${file} does not exist).`;
  const rules = [
    policy.requireSandbox && 'hooks run only in an OS sandbox',
    policy.disallowedCommands.length > 0 && `commands not allowed: ${policy.disallowedCommands.map((c) => cleanLine(c.rule)).join(', ')}`,
    !policy.allowProjectHooks && 'project hooks never run',
    !policy.allowNetwork && 'hooks may not use the network',
  ].filter((rule): rule is string => typeof rule === 'string');
  return `Team policy (${file}): ${rules.length > 0 ? rules.join('; ') : 'no restrictions'}.`;
}

/** A policy that cannot be read refuses every hook; its fields are only there to keep the type whole. */
function broken(file: string, problems: readonly ConfigProblem[], exists = true): TeamPolicy {
  return { file, exists, problem: problems.map(formatProblem).join('; '), ...NO_RESTRICTIONS };
}

/** The rule's matcher, or what is wrong with it. Only bash rules can meet a command: others would never match. */
function compileBashRule(rule: string): CallMatcher | string {
  const parsed = parseRule(rule);
  if (!parsed.ok) return parsed.error;
  if (parsed.rule.tool !== BASH_TOOL) return `rule ${JSON.stringify(rule)}: only bash rules apply to a hook's command, e.g. "bash(curl *)"`;
  const compiled = compileRules([rule]);
  return compiled.ok ? compiled.matcher : compiled.errors.join('; ');
}
