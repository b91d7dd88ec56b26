import assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { createRunFolder } from '../../src/core/runFolder';

describe('run folder', () => {
  it('is a private folder, by its real path, holding the input in a private file', async () => {
    const folder = createRunFolder('{"event":"stop"}');
    try {
      assert.equal(await fs.realpath(folder.dir), folder.dir);
      assert.equal(folder.inputFile, path.join(folder.dir, 'input.json'));
      assert.equal((await fs.stat(folder.dir)).mode & 0o777, 0o700);
      assert.equal((await fs.stat(folder.inputFile)).mode & 0o777, 0o600);
      assert.equal(await fs.readFile(folder.inputFile, 'utf8'), '{"event":"stop"}');
    } finally {
      await folder.remove();
    }
  });

  it('is a new folder for every run', async () => {
    const [a, b] = [createRunFolder(''), createRunFolder('')];
    assert.notEqual(a.dir, b.dir);
    await Promise.all([a.remove(), b.remove()]);
  });

  it('is removed with the input file', async () => {
    const folder = createRunFolder('x');
    await folder.remove();
    await assert.rejects(fs.stat(folder.dir), /ENOENT/);
  });

  it('is removed with whatever the hook left in it, or without the input file the hook deleted', async () => {
    const littered = createRunFolder('x');
    await fs.mkdir(path.join(littered.dir, 'npm/cache'), { recursive: true });
    await fs.writeFile(path.join(littered.dir, 'npm/cache/index'), 'data');
    const emptied = createRunFolder('x');
    await fs.rm(emptied.inputFile);
    await Promise.all([littered.remove(), emptied.remove()]);
    await assert.rejects(fs.stat(littered.dir), /ENOENT/);
    await assert.rejects(fs.stat(emptied.dir), /ENOENT/);
  });
});
