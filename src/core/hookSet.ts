import { canonicalRoot, consentStateOf, hooksHash, readTrustStore, type ConsentState } from './consent';
import { formatProblem, loadHooksFile, type ConfigProblem, type Hook, type HooksFile } from './hookConfig';
import { displayPath, projectHooksFile, userHooksFile } from './paths';

/**
 * Where a project's hooks stand. The CLI knows only the stored consent; the editor adds answers
 * that live in one window (`allowed_once`, `denied`) and Workspace Trust (`restricted`).
 */
export type ProjectConsent = ConsentState | 'allowed_once' | 'denied' | 'restricted' | 'none';

/** The hooks in force for one workspace root, loaded once and used for many calls. */
export interface HookSet {
  readonly root: string;
  readonly user: HooksFile;
  readonly project: HooksFile;
  readonly projectHash: string | undefined;
  readonly projectConsent: ProjectConsent;
  readonly active: readonly Hook[];
  readonly problems: readonly ConfigProblem[];
  /** Why some hooks do not run, in words for the user. */
  readonly notices: readonly string[];
  readonly maxStopContinuations: number;
}

export interface LoadHookSetOptions {
  readonly home: string;
  readonly root: string;
  /** The editor's own answer for this window, which takes precedence over the stored consent. */
  readonly consentOverride?: (stored: ConsentState, hash: string) => ProjectConsent;
}

export async function loadHookSet(options: LoadHookSetOptions): Promise<HookSet> {
  const root = await canonicalRoot(options.root);
  const [user, project, trust] = await Promise.all([
    loadHooksFile(userHooksFile(options.home), 'user'),
    loadHooksFile(projectHooksFile(root), 'project'),
    readTrustStore(options.home),
  ]);
  const notices = trust.problem ? [trust.problem] : [];
  let projectHash: string | undefined;
  let projectConsent: ProjectConsent = 'none';
  if (project.hooks.length > 0) {
    projectHash = hooksHash(project.document);
    const stored = consentStateOf(trust.store, root, projectHash);
    projectConsent = options.consentOverride?.(stored, projectHash) ?? stored;
    const skipped = skippedBecause(projectConsent, root);
    if (skipped) notices.push(`Project hooks in ${displayPath(project.file)} are not run: ${skipped}`);
  }
  const projectRuns = projectConsent === 'allowed' || projectConsent === 'allowed_once';
  const active = projectRuns ? [...user.hooks, ...project.hooks] : user.hooks;
  const maxStopContinuations = projectRuns ? Math.min(user.maxStopContinuations, project.maxStopContinuations) : user.maxStopContinuations;
  return { root, user, project, projectHash, projectConsent, active, problems: [...user.problems, ...project.problems], notices, maxStopContinuations };
}

/** Everything wrong or skipped in a set, one line each, for warnings and `list`. */
export function hookSetWarnings(set: HookSet): string[] {
  return [...set.problems.map(formatProblem), ...set.notices];
}

function skippedBecause(consent: ProjectConsent, root: string): string | undefined {
  const review = `review them with \`garuda-hooks trust --root ${root}\` or the editor's "Garuda: Review Project Hooks".`;
  switch (consent) {
    case 'unreviewed':
      return `you have not allowed them yet; ${review}`;
    case 'changed':
      return `they changed since you allowed them; ${review}`;
    case 'denied':
      return 'you denied them in this window.';
    case 'restricted':
      return 'this workspace is in Restricted Mode; trust it to review its hooks.';
    default:
      return undefined;
  }
}
