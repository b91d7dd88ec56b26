import assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { editFileAction, readFileAction, runCommandAction, writeFileAction } from '../../src/core/toolActions';
import { isAlive, tempDir, waitFor } from './helpers';

describe('toolActions', () => {
  let dir: string;
  let file: string;
  beforeEach(async () => {
    dir = await tempDir();
    file = path.join(dir, 'a.ts');
  });
  afterEach(() => fs.rm(dir, { recursive: true, force: true }));

  describe('runCommandAction', () => {
    const run = (command: string, extra: { timeoutMs?: number; signal?: AbortSignal } = {}) =>
      runCommandAction({ command, cwd: dir, timeoutMs: 10_000, env: { PATH: process.env.PATH }, ...extra });

    it('reports the exit code and both streams, cleaned', async () => {
      const done = await run('pwd; printf "\\033[31mred\\033[0m\\n" >&2; exit 3');
      assert.equal(done.ok, true);
      assert.equal(done.text, `Exit code 3.\n\nstdout:\n${dir}\n\nstderr:\nred`);
      assert.deepEqual(done.result, { exitCode: 3, signal: null, timedOut: false, cancelled: false, stdout: dir, stderr: 'red' });
    });

    it('says when there is no output', async () => {
      assert.equal((await run('true')).text, 'Exit code 0.\n\n(no output)');
    });

    it('stops a command at its timeout', async () => {
      const done = await run('sleep 30', { timeoutMs: 1000 });
      assert.equal(done.text, 'Timed out after 1000 ms: the command and everything it started were stopped.\n\n(no output)');
    });

    it('stops a command and its children when cancelled', async () => {
      const pidFile = path.join(dir, 'pid');
      const controller = new AbortController();
      setTimeout(() => controller.abort(), 300);
      const done = await run(`sleep 30 & echo $! > ${pidFile}; wait`, { signal: controller.signal });
      assert.equal(done.text, 'Cancelled: the command and everything it started were stopped.\n\n(no output)');
      const pid = Number(await fs.readFile(pidFile, 'utf8'));
      assert.ok(await waitFor(() => !isAlive(pid)), 'the child outlived the cancel');
    });

    it('caps a flood of output and says so', async () => {
      const done = await run('head -c 100000 /dev/zero | tr "\\0" a');
      assert.match(done.text, /\n\[cut at 32000 bytes\]$/);
      assert.ok(done.text.length < 17_000);
    });
  });

  describe('readFileAction', () => {
    it('returns the content', async () => {
      await fs.writeFile(file, 'const a = 1;\n');
      assert.deepEqual(await readFileAction(file, 'a.ts'), { ok: true, text: 'const a = 1;\n', result: { characters: 13 } });
    });

    it('says when the file does not exist', async () => {
      assert.deepEqual(await readFileAction(file, 'a.ts'), { ok: false, text: 'a.ts does not exist.' });
    });

    it('says when the path is a folder', async () => {
      assert.deepEqual(await readFileAction(dir, 'src'), { ok: false, text: 'src is a folder, not a file.' });
    });

    it('does not show a binary file', async () => {
      await fs.writeFile(file, Buffer.from([0x89, 0x50, 0x00, 0x01]));
      assert.equal((await readFileAction(file, 'a.png')).text, 'a.png is a binary file: not shown.');
    });
  });

  describe('writeFileAction', () => {
    it('creates a file and its folders', async () => {
      const deep = path.join(dir, 'x', 'y', 'b.ts');
      assert.deepEqual(await writeFileAction(deep, 'é\n', 'x/y/b.ts'), { ok: true, text: 'Created x/y/b.ts (3 bytes).', result: { bytes: 3, created: true } });
      assert.equal(await fs.readFile(deep, 'utf8'), 'é\n');
    });

    it('replaces an existing file', async () => {
      await fs.writeFile(file, 'old');
      assert.equal((await writeFileAction(file, 'new', 'a.ts')).text, 'Replaced the content of a.ts (3 bytes).');
      assert.equal(await fs.readFile(file, 'utf8'), 'new');
    });
  });

  describe('editFileAction', () => {
    it('replaces the one occurrence and names its line', async () => {
      await fs.writeFile(file, 'a\nb\nvar x = 1;\n');
      assert.deepEqual(await editFileAction(file, 'var x', 'let x', 'a.ts'), { ok: true, text: 'Edited a.ts at line 3.', result: { line: 3 } });
      assert.equal(await fs.readFile(file, 'utf8'), 'a\nb\nlet x = 1;\n');
    });

    it('writes replacement patterns such as $& literally', async () => {
      await fs.writeFile(file, 'price');
      await editFileAction(file, 'price', "'$&' costs $1", 'a.ts');
      assert.equal(await fs.readFile(file, 'utf8'), "'$&' costs $1");
    });

    it('changes nothing when the old string is missing', async () => {
      await fs.writeFile(file, 'let x;');
      assert.deepEqual(await editFileAction(file, 'var x', 'let x', 'a.ts'), {
        ok: false,
        text: 'old_string was not found in a.ts: nothing was changed. Read the file again and copy the exact text, including whitespace and line breaks.',
      });
      assert.equal(await fs.readFile(file, 'utf8'), 'let x;');
    });

    it('changes nothing when the old string occurs more than once, overlaps included', async () => {
      await fs.writeFile(file, 'aaa');
      assert.deepEqual(await editFileAction(file, 'aa', 'b', 'a.ts'), {
        ok: false,
        text: 'old_string occurs 2 times in a.ts: nothing was changed. Include more of the surrounding lines so that it occurs exactly once.',
      });
      assert.equal(await fs.readFile(file, 'utf8'), 'aaa');
    });

    it('refuses an edit that changes nothing', async () => {
      await fs.writeFile(file, 'x');
      assert.deepEqual(await editFileAction(file, 'x', 'x', 'a.ts'), { ok: false, text: 'old_string and new_string are the same: a.ts was not changed.' });
    });

    it('says when the file does not exist', async () => {
      assert.deepEqual(await editFileAction(file, 'x', 'y', 'a.ts'), { ok: false, text: 'a.ts does not exist.' });
    });
  });
});
