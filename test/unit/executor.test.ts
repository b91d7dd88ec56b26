import assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { runCommand, type ExecRequest } from '../../src/core/executor';
import { isAlive, tempDir, waitFor } from './helpers';

describe('executor', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await tempDir();
  });
  afterEach(() => fs.rm(dir, { recursive: true, force: true }));

  const exec = (command: string, extra: Partial<ExecRequest> = {}) =>
    runCommand({ command, cwd: dir, env: { PATH: process.env.PATH }, stdin: '', timeoutMs: 10_000, ...extra });

  it('runs sh -c in the given folder with the given environment and stdin', async () => {
    const result = await exec('pwd; echo "$GREETING"; cat; echo oops >&2; exit 3', { env: { PATH: process.env.PATH, GREETING: 'hi' }, stdin: 'from stdin' });
    assert.equal(result.exitCode, 3);
    assert.equal(result.stdout, `${dir}\nhi\nfrom stdin`);
    assert.equal(result.stderr, 'oops\n');
    assert.equal(result.timedOut, false);
    assert.equal(result.signal, null);
  });

  it('does not inherit variables that are not passed', async () => {
    process.env.GARUDA_SECRET_FOR_TEST = 'leak';
    const result = await exec('echo "[$GARUDA_SECRET_FOR_TEST]"');
    delete process.env.GARUDA_SECRET_FOR_TEST;
    assert.equal(result.stdout, '[]\n');
  });

  it('reports a missing binary as exit 127 with the shell message', async () => {
    const result = await exec('no-such-binary-garuda');
    assert.equal(result.exitCode, 127);
    assert.match(result.stderr, /no-such-binary-garuda: (command )?not found/);
  });

  it('reports a process that cannot start', async () => {
    const result = await exec('true', { cwd: path.join(dir, 'missing') });
    assert.equal(result.exitCode, null);
    assert.match(result.spawnError ?? '', /ENOENT/);
  });

  it('reports a hook killed by a signal', async () => {
    const result = await exec('kill -9 $$');
    assert.equal(result.signal, 'SIGKILL');
    assert.equal(result.exitCode, null);
    assert.equal(result.timedOut, false);
  });

  it('kills the whole process tree on a timeout', async () => {
    const pids = path.join(dir, 'pids');
    const result = await exec(`sh -c 'sleep 60 & echo $! >> ${pids}; wait' & echo $! >> ${pids}; sleep 60`, { timeoutMs: 300, killGraceMs: 200 });
    assert.equal(result.timedOut, true);
    const children = (await fs.readFile(pids, 'utf8')).trim().split('\n').map(Number);
    assert.equal(children.length, 2);
    assert.ok(await waitFor(() => children.every((pid) => !isAlive(pid))), 'a child survived the timeout');
  });

  it('ends the whole process tree when its signal aborts', async () => {
    const pidFile = path.join(dir, 'pid');
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 200);
    const result = await exec(`sleep 60 & echo $! > ${pidFile}; wait`, { signal: controller.signal });
    assert.equal(result.cancelled, true);
    assert.equal(result.timedOut, false);
    assert.equal(result.signal, 'SIGTERM');
    const pid = Number(await fs.readFile(pidFile, 'utf8'));
    assert.ok(await waitFor(() => !isAlive(pid)), 'the background child outlived the cancel');
  });

  it('kills a hook that ignores TERM after the grace period', async () => {
    const result = await exec("trap '' TERM; while :; do sleep 0.05; done", { timeoutMs: 200, killGraceMs: 200 });
    assert.equal(result.timedOut, true);
    assert.equal(result.signal, 'SIGKILL');
  });

  it('does not wait for a background child that holds stdout open, and ends it', async () => {
    const pidFile = path.join(dir, 'pid');
    const result = await exec(`sleep 60 & echo $! > ${pidFile}; echo done`);
    assert.equal(result.exitCode, 0);
    assert.equal(result.stdout, 'done\n');
    const pid = Number(await fs.readFile(pidFile, 'utf8'));
    assert.ok(await waitFor(() => !isAlive(pid)), 'the background child outlived the hook');
  });

  it('marks output cut short when a background child still writes after the hook exits', async () => {
    const result = await exec(`(sleep 0.5; echo late) & echo early`);
    assert.equal(result.stdout, 'early\n');
    assert.equal(result.stdoutTruncated, true);
  });

  it('does not mark complete output as cut short', async () => {
    const result = await exec('echo done');
    assert.deepEqual([result.stdoutTruncated, result.stderrTruncated], [false, false]);
  });

  it('keeps the first 8,000 bytes of a flood and lets the hook finish', async () => {
    const result = await exec('head -c 5000000 /dev/zero | tr "\\0" a; echo end >&2; exit 2');
    assert.equal(result.exitCode, 2);
    assert.equal(result.stdout.length, 8000);
    assert.equal(result.stdoutTruncated, true);
    assert.equal(result.stderr, 'end\n');
    assert.equal(result.stderrTruncated, false);
  });

  it('survives a hook that never reads a large stdin', async () => {
    const result = await exec('exit 0', { stdin: 'x'.repeat(2_000_000) });
    assert.equal(result.exitCode, 0);
  });
});
