import assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { resolveToolPath, type WorkspaceRoot } from '../../src/core/toolPaths';
import { tempDir } from './helpers';

describe('resolveToolPath', () => {
  let base: string;
  let alpha: WorkspaceRoot;
  let beta: WorkspaceRoot;
  beforeEach(async () => {
    base = await tempDir();
    alpha = { name: 'alpha', path: path.join(base, 'alpha') };
    beta = { name: 'beta', path: path.join(base, 'beta') };
    await fs.mkdir(path.join(alpha.path, 'src'), { recursive: true });
    await fs.mkdir(beta.path);
  });
  afterEach(() => fs.rm(base, { recursive: true, force: true }));

  it('resolves a relative path against the only folder', async () => {
    assert.deepEqual(await resolveToolPath('src/a.ts', [alpha]), { ok: true, root: alpha, path: path.join(alpha.path, 'src/a.ts'), display: 'src/a.ts' });
  });

  it('resolves a relative path against the first folder of several, named in the display', async () => {
    assert.deepEqual(await resolveToolPath('src/a.ts', [alpha, beta]), { ok: true, root: alpha, path: path.join(alpha.path, 'src/a.ts'), display: 'alpha/src/a.ts' });
  });

  it('resolves a path that starts with a folder name in that folder', async () => {
    assert.deepEqual(await resolveToolPath('beta/b.ts', [alpha, beta]), { ok: true, root: beta, path: path.join(beta.path, 'b.ts'), display: 'beta/b.ts' });
  });

  it('accepts an absolute path inside any folder', async () => {
    const file = path.join(beta.path, 'deep', 'new.ts');
    assert.deepEqual(await resolveToolPath(file, [alpha, beta]), { ok: true, root: beta, path: file, display: 'beta/deep/new.ts' });
  });

  it('shows the folder itself as a dot', async () => {
    assert.deepEqual(await resolveToolPath('.', [alpha]), { ok: true, root: alpha, path: alpha.path, display: '.' });
  });

  it('refuses a path that climbs out of the folder', async () => {
    assert.deepEqual(await resolveToolPath('../secret.txt', [alpha]), {
      ok: false,
      message: '../secret.txt is outside the workspace folders (alpha): the Garuda tools act only inside them. Nothing was done.',
    });
  });

  it('refuses a path through a symlink that points outside the folder', async () => {
    await fs.mkdir(path.join(base, 'outside'));
    await fs.symlink(path.join(base, 'outside'), path.join(alpha.path, 'link'));
    assert.deepEqual(await resolveToolPath('link/new.txt', [alpha]), {
      ok: false,
      message: 'link/new.txt is outside the workspace folders (alpha): the Garuda tools act only inside them. Nothing was done.',
    });
  });

  it('refuses every path when no folder is open', async () => {
    assert.deepEqual(await resolveToolPath('a.ts', []), { ok: false, message: 'No workspace folder is open: the Garuda tools act only inside workspace folders.' });
  });
});
