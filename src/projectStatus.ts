import type { HookSet, ProjectConsent } from './core/hookSet';

/** How a folder's project hooks stand, in words and as an icon, for the Hooks view. */
export interface ProjectStatus {
  readonly words: string;
  readonly icon: string;
  /** A theme colour id; none is the view's own foreground. */
  readonly color?: string;
}

/** The consent states in which a project's hooks run. */
export const PROJECT_RUNS: ReadonlySet<ProjectConsent> = new Set(['allowed', 'allowed_once']);

const GREEN = 'testing.iconPassed';
const YELLOW = 'editorWarning.foreground';
const RED = 'errorForeground';

const STATUS: Record<Exclude<ProjectConsent, 'none'>, ProjectStatus> = {
  allowed: { words: 'always allowed', icon: 'workspace-trusted', color: GREEN },
  allowed_once: { words: 'allowed once (this window)', icon: 'pass', color: GREEN },
  unreviewed: { words: 'waiting for consent (pending)', icon: 'unverified', color: YELLOW },
  changed: { words: 'changed since allowed (pending)', icon: 'diff', color: YELLOW },
  denied: { words: 'denied (this window)', icon: 'circle-slash', color: RED },
  restricted: { words: 'Restricted Mode', icon: 'workspace-untrusted', color: YELLOW },
  policy: { words: 'refused by the team policy', icon: 'law', color: RED },
};

export function projectStatus(set: HookSet): ProjectStatus {
  if (set.projectConsent !== 'none') return STATUS[set.projectConsent];
  if (!set.project.exists) return { words: 'no project hooks', icon: 'folder' };
  return { words: set.project.problems.length > 0 ? 'no valid hooks' : 'no hooks', icon: 'folder' };
}
