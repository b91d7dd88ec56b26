import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { createRunFolder } from '../../src/core/runFolder';
import { tempDir, worker } from './helpers';

describe('run folder', () => {
  const mode = async (file: string) => (await fs.stat(file)).mode & 0o777;

  for (const ownFolder of [true, false]) {
    it(`keeps the input in a private file, in a private folder by its real path${ownFolder ? ' of its own' : ''}`, async () => {
      const folder = createRunFolder('{"event":"stop"}', ownFolder);
      try {
        assert.equal(await fs.realpath(folder.dir), folder.dir);
        assert.equal(path.dirname(folder.inputFile), folder.dir);
        assert.equal(await mode(folder.dir), 0o700);
        assert.equal(await mode(folder.inputFile), 0o600);
        assert.equal(await fs.readFile(folder.inputFile, 'utf8'), '{"event":"stop"}');
      } finally {
        await folder.remove();
      }
      await assert.rejects(fs.stat(folder.inputFile), /ENOENT/);
    });
  }

  it('gives each sandboxed run a new folder, removed with whatever the hook left in it', async () => {
    const [littered, emptied] = [createRunFolder('x', true), createRunFolder('x', true)];
    assert.notEqual(littered.dir, emptied.dir);
    await fs.mkdir(path.join(littered.dir, 'npm/cache'), { recursive: true });
    await fs.writeFile(path.join(littered.dir, 'npm/cache/index'), 'data');
    await fs.rm(emptied.inputFile);
    await Promise.all([littered.remove(), emptied.remove()]);
    await assert.rejects(fs.stat(littered.dir), /ENOENT/);
    await assert.rejects(fs.stat(emptied.dir), /ENOENT/);
  });

  it('gives unsandboxed runs their own files in one folder, and a new folder when that one was removed', async () => {
    const [a, b] = [createRunFolder('a', false), createRunFolder('b', false)];
    assert.equal(a.dir, b.dir);
    assert.notEqual(a.inputFile, b.inputFile);
    await Promise.all([a.remove(), b.remove()]);
    await fs.rm(a.dir, { recursive: true });
    const c = createRunFolder('c', false);
    assert.notEqual(c.dir, a.dir);
    assert.equal(await fs.readFile(c.inputFile, 'utf8'), 'c');
    await c.remove();
  });

  it('removes what a hook locked (chmod 000) in its folder, and never fails doing so', async () => {
    // As an ordinary user: root may enter any folder. The worker is copied where that user can read it.
    const dir = await tempDir();
    try {
      const script = path.join(dir, 'remove-locked.js');
      await fs.copyFile(worker('remove-locked'), script);
      await fs.chmod(dir, 0o755);
      const asUser = process.getuid?.() === 0 ? ['setpriv', '--reuid=65534', '--regid=65534', '--clear-groups', '--'] : [];
      const argv = [...asUser, process.execPath, script];
      const stdout = await new Promise<string>((resolve, reject) => {
        execFile(argv[0]!, argv.slice(1), { env: { PATH: process.env.PATH } }, (error, out, err) => (error ? reject(new Error(`${error.message}${err}`)) : resolve(out)));
      });
      assert.deepEqual(JSON.parse(stdout), { left: [] });
    } finally {
      await fs.rm(dir, { recursive: true, force: true });
    }
  });
});
