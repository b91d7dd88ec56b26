// What the editor shows before a guarded tool runs: the action itself, exactly, and every hook that
// will run around it. Markdown text; the editor wraps it in its own confirmation.
import { cleanLine } from './clean';
import type { Hook } from './hookConfig';

/** Lines of written or replaced text shown before the rest is summarised. */
const PREVIEW_LINES = 30;

const HOOK_ROLES: Record<Hook['event'], string> = {
  preToolUse: 'guard, before',
  postToolUse: 'check, after',
  stop: 'stop hook',
};

/** `hooks` undefined: Garuda Hooks is turned off, so none runs. */
export function previewMarkdown(action: string, hooks: readonly Hook[] | undefined): string {
  return `${action}\n\n${hooksMarkdown(hooks)}`;
}

/** One line for a progress message: "2 hooks: `guard` (guard, before), `eslint` (check, after)". */
export function hooksSummary(hooks: readonly Hook[] | undefined): string {
  if (!hooks) return 'hooks off';
  if (hooks.length === 0) return 'no hook matches';
  const named = hooks.map((hook) => `${inlineCode(cleanLine(hook.command, 60))} (${HOOK_ROLES[hook.event]})`);
  return `${hooks.length === 1 ? '1 hook' : `${hooks.length} hooks`}: ${named.join(', ')}`;
}

/** A fenced block that no backtick run inside `text` can close early. */
export function codeBlock(text: string, language = ''): string {
  const fence = '`'.repeat(Math.max(3, longestBacktickRun(text) + 1));
  return `${fence}${language}\n${text}\n${fence}`;
}

/** Inline code that a backtick inside `text` cannot end early. */
export function inlineCode(text: string): string {
  const fence = '`'.repeat(longestBacktickRun(text) + 1);
  const pad = text.startsWith('`') || text.endsWith('`') ? ' ' : '';
  return `${fence}${pad}${text}${pad}${fence}`;
}

/** The first lines of text to be written, with a count of the rest. */
export function textPreview(text: string): string {
  const lines = text.split('\n');
  const shown = codeBlock(lines.slice(0, PREVIEW_LINES).join('\n'));
  return lines.length > PREVIEW_LINES ? `${shown}\n… and ${lines.length - PREVIEW_LINES} more lines` : shown;
}

function hooksMarkdown(hooks: readonly Hook[] | undefined): string {
  if (!hooks) return '_Garuda Hooks is turned off (`garudaHooks.enabled`): no hook runs._';
  if (hooks.length === 0) return '_No hook matches this call._';
  // The whole command, every hidden or control character spelled out, as the consent dialog shows it.
  const lines = hooks.map((hook) => `- ${HOOK_ROLES[hook.event]} (${hook.source} hooks): ${inlineCode(cleanLine(hook.command, Number.MAX_SAFE_INTEGER))}`);
  return `**Hooks that will run:**\n${lines.join('\n')}`;
}

function longestBacktickRun(text: string): number {
  return Math.max(0, ...(text.match(/`+/g) ?? []).map((run) => run.length));
}
