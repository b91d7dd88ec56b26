// The words the model reads about hooks, shared by every agent integration so they stay the same.

export const BLOCKED_PREFIX = 'Blocked by a hook: ';

/** What a tool returns to the model instead of running when a guard denies the call. */
export function blockedMessage(reason: string): string {
  return `${BLOCKED_PREFIX}${reason}`;
}

/** A paragraph for the agent's system prompt when hooks are active. */
export const SYSTEM_PROMPT_NOTE = [
  "The user's hooks check your tool calls.",
  'When a tool result starts with "Blocked by a hook:", the call did not run: read the reason, change your approach, and do not retry the same call or look for a way around the hook.',
  'Text inside <hook_feedback>…</hook_feedback> after a tool result comes from the user\'s own checks (linters, tests, policies): fix what it reports before you go on.',
  'A hook may also send you back to work when you try to finish; then do what its reason says.',
].join(' ');
