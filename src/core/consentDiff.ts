import { cleanLine } from './clean';
import { canonicalJson, consentDetail, describeHook, type ConsentState } from './consent';
import { parseHooksFile, type HookDefinition, type HooksFile } from './hookConfig';
import type { TeamPolicy } from './policy';
import type { SandboxInfo } from './sandbox';

export interface HookChange {
  readonly kind: 'added' | 'removed' | 'changed';
  readonly before?: HookDefinition;
  readonly after?: HookDefinition;
}

/**
 * What changed between the hooks a user allowed and the current ones. Hooks are paired by event and
 * position, so an edited command reads as "changed" rather than as one removed and one added.
 */
export function diffHooks(before: readonly HookDefinition[], after: readonly HookDefinition[]): HookChange[] {
  const key = (hook: HookDefinition) => `${hook.event}#${hook.index}`;
  const old = new Map(before.map((hook) => [key(hook), hook]));
  const changes: HookChange[] = [];
  for (const hook of after) {
    const previous = old.get(key(hook));
    old.delete(key(hook));
    if (!previous) changes.push({ kind: 'added', after: hook });
    else if (fingerprint(previous) !== fingerprint(hook)) changes.push({ kind: 'changed', before: previous, after: hook });
  }
  for (const hook of old.values()) changes.push({ kind: 'removed', before: hook });
  return changes;
}

/** The changes as lines for the consent modal, each command shown in full on one line. */
export function describeChanges(changes: readonly HookChange[]): string {
  if (changes.length === 0) return 'No hook changed; only settings such as maxStopContinuations or formatting did.';
  const full = (hook: HookDefinition) => cleanLine(hook.command, Number.MAX_SAFE_INTEGER);
  return changes
    .map((change) => {
      switch (change.kind) {
        case 'added':
          return `+ added: ${describeHook(change.after!)}\n    ${full(change.after!)}`;
        case 'removed':
          return `- removed: ${describeHook(change.before!)}\n    ${full(change.before!)}`;
        case 'changed':
          return `~ changed: ${describeHook(change.after!)}\n    was: ${full(change.before!)}\n    now: ${full(change.after!)}` +
            (describeHook(change.before!) === describeHook(change.after!) ? '' : `\n    settings were: ${describeHook(change.before!)}`);
      }
    })
    .join('\n');
}

function fingerprint(hook: HookDefinition): string {
  const { command, tools, timeoutMs, network, onFailure } = hook;
  return canonicalJson({ command, tools, timeoutMs, network, onFailure });
}

/** The changes since the document the user allowed, or undefined when none was kept. */
export function changesSinceReview(reviewed: unknown, project: HooksFile): string | undefined {
  if (reviewed === undefined) return undefined;
  const before = parseHooksFile(JSON.stringify(reviewed), project.file, 'project').hooks;
  return describeChanges(diffHooks(before, project.hooks));
}

/** The consent text with, for hooks that changed since they were allowed, what changed. */
export function consentDetailWithChanges(project: HooksFile, state: ConsentState, sandbox: SandboxInfo, policy: TeamPolicy, reviewed: unknown): string {
  const detail = consentDetail(project, state, sandbox, policy);
  const changes = state === 'changed' ? changesSinceReview(reviewed, project) : undefined;
  if (!changes) return detail;
  // What changed comes right under the headline: it is what the user is asked about.
  const [headline, ...rest] = detail.split('\n\n');
  return [headline, `What changed:\n${changes}`, 'All the hooks now:', ...rest].join('\n\n');
}
