import { promises as fs } from 'node:fs';
import * as z from 'zod/mini';
import { lazy } from './lazy';
import { parseJsonDocument } from './jsonDocument';
import { displayPath } from './paths';
import { parseRule } from './rules';

export const HOOK_EVENTS = ['preToolUse', 'postToolUse', 'stop'] as const;
export type HookEvent = (typeof HOOK_EVENTS)[number];
export type HookSource = 'user' | 'project';
export type FailureMode = 'block' | 'allow';

/** One hook as written in a hooks.json, with defaults applied. */
export interface HookDefinition {
  readonly event: HookEvent;
  /** Position in its event's list: results are reported in config order. */
  readonly index: number;
  readonly command: string;
  readonly tools: readonly string[];
  readonly timeoutMs: number;
  readonly network: boolean;
  readonly onFailure: FailureMode;
}

/** A valid hook; its set matches calls against the rules of all its hooks at once (see matchingHooks). */
export interface Hook extends HookDefinition {
  readonly source: HookSource;
  readonly file: string;
}

/** A problem at a JSON path of a hooks file; `path` lets the editor put it on the right key. */
export interface ConfigProblem {
  readonly file: string;
  readonly path: readonly (string | number)[];
  readonly message: string;
  /** Where in the text a syntax error is, when the problem has no JSON path to point at. */
  readonly offset?: number;
}

export interface HooksFile {
  readonly file: string;
  readonly source: HookSource;
  readonly exists: boolean;
  /** The parsed JSON document, for hashing; undefined when missing or not JSON. */
  readonly document: unknown;
  readonly hooks: readonly Hook[];
  readonly problems: readonly ConfigProblem[];
  readonly maxStopContinuations: number;
}

export const DEFAULT_TIMEOUT_MS = 60_000;
export const DEFAULT_MAX_STOP_CONTINUATIONS = 8;

// zod/mini: the same validation as classic zod in a fraction of the bundle, which every start loads.
const hookSchemas = lazy(() => {
  const command = z.string().check(z.trim(), z.minLength(1), z.describe('Shell command, run with `sh -c` in the workspace root.'));
  const tools = z
    .array(z.string())
    .check(z.describe('Permission rules such as "bash(git push*)", "edit_file(src/**)" or "mcp__github__*". Empty or absent: every tool.'));
  const timeoutMs = z
    ._default(z.number().check(z.int(), z.minimum(1), z.maximum(600_000)), DEFAULT_TIMEOUT_MS)
    .check(z.describe('Kill the hook after this many milliseconds.'));
  const network = z._default(z.boolean(), false).check(z.describe('Allow network access inside the OS sandbox.'));
  const onFailure = z
    ._default(z.enum(['block', 'allow']), 'block')
    .check(z.describe('When the guard crashes, times out or exits with a code other than 0 or 2: block the call (default) or let it through.'));
  return {
    preToolUse: z.strictObject({ command, tools: z.optional(tools), timeoutMs, network, onFailure }),
    postToolUse: z.strictObject({ command, tools: z.optional(tools), timeoutMs, network }),
    stop: z.strictObject({ command, timeoutMs, network }),
  } satisfies Record<HookEvent, z.ZodMiniType>;
});

/** The whole file. Hook entries are checked one by one so one bad entry does not disable the others. */
export const hooksFileSchema = lazy(() =>
  z.strictObject({
    $schema: z.optional(z.string()),
    hooks: z.optional(
      z.strictObject({
        preToolUse: z.optional(z.array(hookSchemas().preToolUse)).check(z.describe('Guards run before a tool call; exit 2 blocks it.')),
        postToolUse: z.optional(z.array(hookSchemas().postToolUse)).check(z.describe('Checks run after a tool call; exit 2 sends stderr to the model.')),
        stop: z.optional(z.array(hookSchemas().stop)).check(z.describe('Run when the agent wants to finish; exit 2 sends it back to work.')),
      }),
    ),
    maxStopContinuations: z
      ._default(z.number().check(z.int(), z.minimum(1), z.maximum(50)), DEFAULT_MAX_STOP_CONTINUATIONS)
      .check(z.describe('How many times stop hooks may send the agent back to work in one run.')),
  }),
);

const topLevelSchema = lazy(() =>
  z.extend(hooksFileSchema(), {
    hooks: z.optional(z.strictObject(Object.fromEntries(HOOK_EVENTS.map((e) => [e, z.optional(z.array(z.unknown()))])))),
  }),
);

/** Reads a hooks file. A missing file is no hooks and no problem; nothing here throws. */
export async function loadHooksFile(file: string, source: HookSource): Promise<HooksFile> {
  let text: string;
  try {
    text = await fs.readFile(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return emptyFile(file, source, false);
    return { ...emptyFile(file, source, true), problems: [{ file, path: [], message: `cannot be read: ${(error as Error).message}` }] };
  }
  return parseHooksFile(text, file, source);
}

export function parseHooksFile(text: string, file: string, source: HookSource): HooksFile {
  const parsed = parseJsonDocument(text);
  if (!parsed.ok) return { ...emptyFile(file, source, true), problems: [{ file, path: [], message: parsed.message, offset: parsed.offset }] };
  const document = parsed.value;
  const problems: ConfigProblem[] = [];
  const top = topLevelSchema().safeParse(document, { reportInput: true });
  if (!top.success) problems.push(...top.error.issues.flatMap((issue) => toProblems(file, issue)));
  const hooks: Hook[] = [];
  const lists = isRecord(document) && isRecord(document.hooks) ? document.hooks : {};
  for (const event of HOOK_EVENTS) {
    const list = lists[event];
    if (!Array.isArray(list)) continue;
    list.forEach((entry, index) => {
      const hook = parseHook(entry, event, index, file, source);
      if ('problems' in hook) problems.push(...hook.problems);
      else hooks.push(hook);
    });
  }
  const max = top.success ? top.data.maxStopContinuations : readMax(document);
  return { file, source, exists: true, document, hooks, problems, maxStopContinuations: max };
}

/** `~/.garuda/hooks.json: hooks.preToolUse[0].timeoutMs: …`, the one line users see. */
export function formatProblem(problem: ConfigProblem): string {
  const where = jsonPath(problem.path);
  return `${displayPath(problem.file)}: ${where ? where + ': ' : ''}${problem.message}`;
}

export function jsonPath(path: readonly (string | number)[]): string {
  return path.map((part, i) => (typeof part === 'number' ? `[${part}]` : i === 0 ? part : `.${part}`)).join('');
}

function parseHook(entry: unknown, event: HookEvent, index: number, file: string, source: HookSource): Hook | { problems: ConfigProblem[] } {
  const base = ['hooks', event, index];
  const parsed = hookSchemas()[event].safeParse(entry, { reportInput: true });
  if (!parsed.success) {
    return { problems: parsed.error.issues.flatMap((issue) => toProblems(file, { ...issue, path: [...base, ...issue.path] })) };
  }
  // The three event schemas differ only in which optional keys they allow.
  const data: { command: string; tools?: string[]; timeoutMs: number; network: boolean; onFailure?: FailureMode } = parsed.data;
  const rules = data.tools ?? [];
  const ruleProblems = rules.flatMap((rule, i) => {
    const result = parseRule(rule);
    return result.ok ? [] : [{ file, path: [...base, 'tools', i], message: `${result.error}; this hook is skipped` }];
  });
  if (ruleProblems.length > 0) return { problems: ruleProblems };
  return {
    event,
    index,
    command: data.command,
    tools: rules,
    timeoutMs: data.timeoutMs,
    network: data.network,
    onFailure: data.onFailure ?? 'block',
    source,
    file,
  };
}

type Issue = z.core.$ZodIssue;

function toProblems(file: string, issue: Issue): ConfigProblem[] {
  const path = issue.path.filter((p): p is string | number => typeof p !== 'symbol');
  if (issue.code === 'unrecognized_keys') {
    return issue.keys.map((key) => ({ file, path: [...path, key], message: `unknown key "${key}"${suggestKey(key, path)}` }));
  }
  return [{ file, path, message: describeIssue(issue) }];
}

export function describeIssue(issue: Issue): string {
  const got = 'input' in issue ? `, got ${describeValue(issue.input)}` : '';
  switch (issue.code) {
    case 'invalid_type':
      return issue.input === undefined ? `required ${issue.expected} is missing` : `expected ${issue.expected}${got}`;
    case 'too_small':
      return issue.origin === 'string' ? `must not be empty` : `must be at least ${String(issue.minimum)}${got}`;
    case 'too_big':
      return `must be at most ${String(issue.maximum)}${got}`;
    case 'invalid_value':
      return `expected ${issue.values.map((v) => JSON.stringify(v)).join(' or ')}${got}`;
    default:
      return issue.message;
  }
}

function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 40 ? `${text.slice(0, 40)}…` : text;
}

/** Other agents' spellings (`PreToolUse`, `timeout`, `matcher`) are the usual cause of an unknown key. */
function suggestKey(key: string, path: readonly (string | number)[]): string {
  const event = path[1] as HookEvent;
  const known = path.length === 0 ? Object.keys(hooksFileSchema().shape) : path.length === 1 ? [...HOOK_EVENTS] : Object.keys(hookSchemas()[event].shape);
  if (path.length === 3) {
    const events = HOOK_EVENTS.filter((other) => key in hookSchemas()[other].shape);
    if (events.length > 0) return ` (only ${events.join(' and ')} hooks take "${key}")`;
  }
  if (key === 'matcher') return ' (use "tools" with permission rules such as "bash(git push*)")';
  const lower = key.toLowerCase();
  const match = known.find((k) => k.toLowerCase() === lower || k.toLowerCase().startsWith(lower) || lower.startsWith(k.toLowerCase()));
  return match ? ` (did you mean "${match}"?)` : ` (expected one of: ${known.join(', ')})`;
}

function readMax(document: unknown): number {
  const parsed = hooksFileSchema().shape.maxStopContinuations.safeParse(isRecord(document) ? document.maxStopContinuations : undefined);
  return parsed.success ? parsed.data : DEFAULT_MAX_STOP_CONTINUATIONS;
}

/** A file with no hooks and no problems. */
export function emptyFile(file: string, source: HookSource, exists: boolean): HooksFile {
  return { file, source, exists, document: undefined, hooks: [], problems: [], maxStopContinuations: DEFAULT_MAX_STOP_CONTINUATIONS };
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
