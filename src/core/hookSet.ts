import { canonicalRoot, consentStateOf, hooksHash, readTrustStore, type ConsentState } from './consent';
import { emptyFile, formatProblem, loadHooksFile, type ConfigProblem, type Hook, type HooksFile } from './hookConfig';
import { displayPath, projectHooksFile, userHooksFile } from './paths';
import { describePolicy, loadTeamPolicy, policyLocation, type PolicyLocation, type TeamPolicy } from './policy';

/**
 * Where a project's hooks stand. The CLI knows only the stored consent; the editor adds answers
 * that live in one window (`allowed_once`, `denied`) and Workspace Trust (`restricted`). `policy`:
 * the team policy does not allow project hooks (or cannot be read), so they never run and never ask.
 */
export type ProjectConsent = ConsentState | 'allowed_once' | 'denied' | 'restricted' | 'policy' | 'none';

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
  /** Read once per load, so reloading the set rereads it. */
  readonly policy: TeamPolicy;
}

export interface LoadHookSetOptions {
  readonly home: string;
  readonly root: string;
  /** The editor's own answer for this window, which takes precedence over the stored consent. */
  readonly consentOverride?: (stored: ConsentState, hash: string) => ProjectConsent;
  /** Where the team policy is; default `$GARUDA_POLICY` or the platform's managed path. */
  readonly policy?: PolicyLocation;
}

export async function loadHookSet(options: LoadHookSetOptions): Promise<HookSet> {
  const root = await canonicalRoot(options.root);
  const userFile = userHooksFile(options.home);
  // A root whose project file is the user file (the home folder opened as a workspace) has no project hooks.
  const projectFile = projectHooksFile(root);
  const [user, loaded, trust, policy] = await Promise.all([
    loadHooksFile(userFile, 'user'),
    projectFile === userFile ? emptyFile(projectFile, 'project', false) : loadHooksFile(projectFile, 'project'),
    readTrustStore(options.home),
    loadTeamPolicy(options.policy ?? policyLocation()),
  ]);
  const hashed = hashProject(loaded);
  const project = hashed.file;
  const notices: string[] = [];
  if (trust.problem) notices.push(trust.problem);
  if (policy.problem) notices.push(describePolicy(policy));
  let projectHash: string | undefined;
  let projectConsent: ProjectConsent = 'none';
  if (project.hooks.length > 0 && hashed.hash) {
    projectHash = hashed.hash;
    const stored = consentStateOf(trust.store, root, projectHash);
    const allowed = policy.allowProjectHooks && !policy.problem;
    projectConsent = allowed ? (options.consentOverride?.(stored, projectHash) ?? stored) : 'policy';
    const skipped = skippedBecause(projectConsent, root, policy);
    if (skipped) notices.push(`Project hooks in ${displayPath(project.file)} are not run: ${skipped}`);
  }
  const projectRuns = projectConsent === 'allowed' || projectConsent === 'allowed_once';
  const active = projectRuns ? [...user.hooks, ...project.hooks] : user.hooks;
  const maxStopContinuations = projectRuns ? Math.min(user.maxStopContinuations, project.maxStopContinuations) : user.maxStopContinuations;
  return { root, user, project, projectHash, projectConsent, active, problems: [...user.problems, ...project.problems], notices, maxStopContinuations, policy };
}

/** Formatted once per set: every call of the set reports them. */
const warningsOf = new WeakMap<HookSet, readonly string[]>();

/**
 * A document too deeply nested to hash (a hostile clone) cannot be consented to: its hooks are
 * dropped with a problem, and the user's own hooks load as usual.
 */
function hashProject(file: HooksFile): { file: HooksFile; hash?: string } {
  if (file.hooks.length === 0) return { file };
  try {
    return { file, hash: hooksHash(file.document) };
  } catch (error) {
    return { file: { ...file, hooks: [], problems: [...file.problems, { file: file.file, path: [], message: `cannot be read: ${(error as Error).message}` }] } };
  }
}

/** Everything wrong or skipped in a set, one line each, for warnings and `list`. */
export function hookSetWarnings(set: HookSet): readonly string[] {
  let warnings = warningsOf.get(set);
  if (!warnings) {
    warnings = Object.freeze([...set.problems.map(formatProblem), ...set.notices]);
    warningsOf.set(set, warnings);
  }
  return warnings;
}

function skippedBecause(consent: ProjectConsent, root: string, policy: TeamPolicy): string | undefined {
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
    case 'policy':
      return policy.problem ? 'the team policy cannot be used.' : `the team policy (${displayPath(policy.file)}) sets allowProjectHooks to false.`;
    default:
      return undefined;
  }
}

/**
 * Every folder's set repeats the user file's problems and hooks: these list each one once, for the
 * views that show all folders together.
 */
export function uniqueProblems(sets: readonly HookSet[]): ConfigProblem[] {
  return [...new Map(sets.flatMap((set) => set.problems.map((problem) => [formatProblem(problem), problem] as const))).values()];
}

/** The hooks in force across sets, each once, with the root a project hook belongs to. */
export function uniqueActiveHooks(sets: readonly HookSet[]): { hook: Hook; root: string }[] {
  const seen = new Map<string, { hook: Hook; root: string }>();
  for (const set of sets) {
    for (const hook of set.active) {
      const key = `${hook.file}#${hook.event}#${hook.index}`;
      if (!seen.has(key)) seen.set(key, { hook, root: set.root });
    }
  }
  return [...seen.values()];
}
