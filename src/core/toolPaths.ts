// Where a path a model gives a tool points, and whether it stays inside the workspace. Real paths
// throughout: a symlink inside a folder that points outside it must not carry a write out.
import { promises as fs } from 'node:fs';
import * as path from 'node:path';

export interface WorkspaceRoot {
  readonly name: string;
  /** Absolute. */
  readonly path: string;
}

export type ResolvedPath<R extends WorkspaceRoot> =
  /** `path` is real and absolute; `display` is relative to its folder, prefixed by the folder name when there are several. */
  | { readonly ok: true; readonly root: R; readonly path: string; readonly display: string }
  | { readonly ok: false; readonly message: string };

/**
 * Resolves `given` like VS Code's relative paths: against the first folder, or against the folder it
 * names first in a multi-root workspace (`beta/src/a.ts`). Absolute paths must lie in some folder.
 */
export async function resolveToolPath<R extends WorkspaceRoot>(given: string, roots: readonly R[]): Promise<ResolvedPath<R>> {
  const first = roots[0];
  if (!first) return { ok: false, message: 'No workspace folder is open: the Garuda tools act only inside workspace folders.' };
  const [head, ...rest] = given.split(/[/\\]/);
  const named = roots.length > 1 ? roots.find((root) => root.name === head) : undefined;
  const absolute = path.isAbsolute(given) ? path.resolve(given) : named ? path.resolve(named.path, ...rest) : path.resolve(first.path, given);
  const real = await realPathOf(absolute);
  const realRoots = await Promise.all(roots.map(async (root) => ({ root, real: await realPathOf(root.path) })));
  // The innermost folder wins when folders are nested.
  const inside = realRoots
    .filter(({ real: rootPath }) => real === rootPath || real.startsWith(rootPath + path.sep))
    .sort((a, b) => b.real.length - a.real.length)[0];
  if (!inside) {
    const names = roots.map((root) => root.name).join(', ');
    return { ok: false, message: `${given} is outside the workspace folders (${names}): the Garuda tools act only inside them. Nothing was done.` };
  }
  const relative = path.relative(inside.real, real).split(path.sep).join('/');
  const display = roots.length > 1 ? [inside.root.name, relative].filter(Boolean).join('/') : relative || '.';
  return { ok: true, root: inside.root, path: real, display };
}

/** The real path of a file that may not exist yet: its nearest existing ancestor's real path, plus the rest. */
async function realPathOf(absolute: string): Promise<string> {
  const missing: string[] = [];
  let current = absolute;
  for (;;) {
    try {
      return path.join(await fs.realpath(current), ...missing.reverse());
    } catch {
      const parent = path.dirname(current);
      if (parent === current) return absolute;
      missing.push(path.basename(current));
      current = parent;
    }
  }
}
