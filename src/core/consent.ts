import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import * as z from 'zod/mini';
import { cleanLine } from './clean';
import { writeFileAtomic, withFileLock } from './fileLock';
import { formatProblem, isRecord, type HookDefinition, type HooksFile } from './hookConfig';
import { lazy } from './lazy';
import { trustFile } from './paths';
import { describePolicy, type TeamPolicy } from './policy';
import { sandboxLine, type SandboxInfo } from './sandbox';

/** `allowed`: the stored hash is the current one. `changed`: another hash is stored. */
export type ConsentState = 'allowed' | 'changed' | 'unreviewed';

export interface TrustStore {
  readonly hooks: Readonly<Record<string, string>>;
  /** The hooks document each root was allowed with, so a change can be shown as a diff. */
  readonly reviewed: Readonly<Record<string, unknown>>;
}

export const CONSENT_QUESTION = "Run this project's hooks?";

const trustSchema = lazy(() =>
  z.looseObject({
    hooks: z._default(z.record(z.string(), z.string()), {}),
    reviewed: z._default(z.record(z.string(), z.unknown()), {}),
  }),
);
type StoredTrust = z.infer<ReturnType<typeof trustSchema>>;
const EMPTY_STORE: TrustStore = { hooks: {}, reviewed: {} };

/** sha256 of the canonical JSON of a project's hooks document: formatting and key order do not count. */
export function hooksHash(document: unknown): string {
  const hashed = isRecord(document) ? { ...document, $schema: undefined } : document;
  return createHash('sha256').update(canonicalJson(hashed)).digest('hex');
}

export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((v) => canonicalJson(v ?? null)).join(',')}]`;
  if (isRecord(value)) {
    const keys = Object.keys(value).filter((k) => value[k] !== undefined).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(value[k])}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/** Consent is keyed by the real path, so a symlinked checkout does not ask again or dodge the question. */
export async function canonicalRoot(root: string): Promise<string> {
  const absolute = path.resolve(root);
  return fs.realpath(absolute).catch(() => absolute);
}

/**
 * A missing store is no consent. A corrupt one is no consent either, with a problem to show:
 * guessing could run hooks the user never allowed.
 */
export async function readTrustStore(home: string): Promise<{ store: TrustStore; problem?: string }> {
  const file = trustFile(home);
  let text: string;
  try {
    text = await fs.readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { store: EMPTY_STORE };
    return { store: EMPTY_STORE, problem: `${file}: cannot be read: ${(error as Error).message}` };
  }
  try {
    return { store: trustSchema().parse(JSON.parse(text)) };
  } catch {
    return { store: EMPTY_STORE, problem: `${file}: not a valid consent store; every project asks again` };
  }
}

export function consentStateOf(store: TrustStore, root: string, hash: string): ConsentState {
  const stored = store.hooks[root];
  if (stored === undefined) return 'unreviewed';
  return stored === hash ? 'allowed' : 'changed';
}

/** Stores the hash of the allowed hooks and, when given, the hooks document itself for later diffs. */
export async function rememberConsent(home: string, root: string, hash: string, document?: unknown): Promise<void> {
  await updateTrustStore(home, (store) => ({
    ...store,
    hooks: { ...store.hooks, [root]: hash },
    reviewed: document === undefined ? store.reviewed : { ...store.reviewed, [root]: document },
  }));
}

/** Returns whether consent had been stored. */
export async function revokeConsent(home: string, root: string): Promise<boolean> {
  let had = false;
  await updateTrustStore(home, (store) => {
    had = root in store.hooks;
    const { [root]: _hash, ...hooks } = store.hooks;
    const { [root]: _document, ...reviewed } = store.reviewed;
    return { ...store, hooks, reviewed };
  });
  return had;
}

async function updateTrustStore(home: string, change: (store: StoredTrust) => StoredTrust): Promise<void> {
  const file = trustFile(home);
  await withFileLock(file, async () => {
    const text = await fs.readFile(file, 'utf8').catch(() => '{}');
    let current: StoredTrust;
    try {
      current = trustSchema().parse(JSON.parse(text));
    } catch {
      current = { hooks: {}, reviewed: {} };
    }
    await writeFileAtomic(file, JSON.stringify(change(current), null, 2) + '\n');
  });
}

/** The words under the question, the same in the CLI and the editor's modal: the hooks, then where they would run. */
export function consentDetail(project: HooksFile, state: ConsentState, sandbox: SandboxInfo, policy: TeamPolicy): string {
  // A folder name is the repository's to choose too: shown escaped like the commands.
  const file = cleanLine(project.file, Number.MAX_SAFE_INTEGER);
  const lines = [
    state === 'changed'
      ? `The hooks in ${file} changed since you allowed them.`
      : `${file} asks to run these commands on your machine when an agent uses a tool:`,
    '',
    ...project.hooks.flatMap((hook) => [describeHook(hook), `    ${cleanLine(hook.command, Number.MAX_SAFE_INTEGER)}`]),
    '',
    'Only these commands are pinned: a script they run (such as scripts/guard.sh) can change without asking again.',
  ];
  if (project.hooks.length === 0) lines.push('(no valid hooks)');
  if (project.problems.length > 0) {
    lines.push('', `Not run, because they are invalid:`, ...project.problems.map((p) => `  ${cleanLine(formatProblem(p))}`));
  }
  lines.push('', sandboxLine(sandbox), describePolicy(policy));
  return lines.join('\n');
}

/** One line of facts about a hook: event, rules, network, failure mode, timeout. */
export function describeHook(hook: HookDefinition): string {
  const parts: string[] = [hook.event];
  if (hook.event !== 'stop') parts.push(`tools: ${hook.tools.length > 0 ? hook.tools.map((t) => cleanLine(t)).join(', ') : 'every tool'}`);
  parts.push(`network: ${hook.network ? 'ON' : 'off'}`);
  if (hook.event === 'preToolUse') parts.push(`on failure: ${hook.onFailure}`);
  parts.push(`timeout: ${hook.timeoutMs / 1000} s`);
  return parts.join(' · ');
}
