import * as os from 'node:os';
import * as path from 'node:path';

/** Where the user's trusted hooks, the consent store and the audit log live. */
export function garudaHome(env: NodeJS.ProcessEnv = process.env): string {
  const configured = env.GARUDA_HOME?.trim();
  return configured ? path.resolve(configured) : path.join(os.homedir(), '.garuda');
}

export const userHooksFile = (home: string): string => path.join(home, 'hooks.json');
export const projectHooksFile = (root: string): string => path.join(root, '.garuda', 'hooks.json');
export const trustFile = (home: string): string => path.join(home, 'trust.json');
export const auditFile = (home: string): string => path.join(home, 'audit.jsonl');

/** Shows a path under the home folder as `~/…`, the way users recognise it. */
export function displayPath(file: string): string {
  const home = os.homedir();
  return file === home || file.startsWith(home + path.sep) ? '~' + file.slice(home.length) : file;
}
