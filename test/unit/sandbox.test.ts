import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { promises as fs } from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { bwrapArgv } from '../../src/core/bwrap';
import { loadHookSet } from '../../src/core/hookSet';
import { macosProfile, sandboxExecArgv } from '../../src/core/macosProfile';
import { createHookRunner } from '../../src/core/runner';
import { detectSandbox, sandboxedCommand, sandboxLine } from '../../src/core/sandbox';
import { bwrapSandbox, fixture, tempDir, userHooks, waitFor, worker, writeJson } from './helpers';

const policy = { root: '/work/project', tempDir: '/tmp/garuda-hook-x', network: false };
const LIMITS = 'hooks can write only in the workspace and a private temp folder, and reach the network only with "network": true.';

/** Host pids of the processes whose arguments contain `token`, found by the host's /proc: pids inside a sandbox are not the host's. */
async function processesWith(token: string, which: (argv: string[]) => boolean = () => true): Promise<number[]> {
  const pids = (await fs.readdir('/proc')).filter((name) => /^\d+$/.test(name));
  const matching = await Promise.all(pids.map(async (pid) => {
    const argv = (await fs.readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '')).split('\0');
    return argv.some((arg) => arg.includes(token)) && which(argv) ? [Number(pid)] : [];
  }));
  return matching.flat();
}

describe('sandbox detection', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await tempDir();
  });
  afterEach(() => fs.rm(dir, { recursive: true, force: true }));

  it('finds bwrap on PATH, checks that it works, and says what hooks may do', () => {
    const sandbox = bwrapSandbox();
    assert.deepEqual(sandbox, { name: 'bwrap', available: true, program: sandbox.program, description: `bubblewrap (${sandbox.program}): ${LIMITS}` });
    assert.equal(path.basename(sandbox.program), 'bwrap');
    assert.equal(sandboxLine(sandbox), `OS sandbox: bubblewrap (${sandbox.program}): ${LIMITS}`);
  });

  it('has no sandbox when bwrap is not on the PATH it is given, and says why', () => {
    const sandbox = detectSandbox({ env: { PATH: dir }, platform: 'linux' });
    const reason = 'bwrap (bubblewrap) was not found on PATH; install it, e.g. `apt-get install bubblewrap`';
    assert.deepEqual(sandbox, { name: 'none', available: false, reason, description: `hooks run with your full user permissions, because ${reason}.` });
    assert.equal(sandboxLine(sandbox), `No OS sandbox: hooks run with your full user permissions, because ${reason}.`);
  });

  it('has no sandbox when bwrap is installed but cannot start one, and quotes its error', async () => {
    const fake = path.join(dir, 'bwrap');
    await fs.writeFile(fake, '#!/bin/sh\necho "bwrap: No permissions to creating new namespace" >&2\nexit 1\n', { mode: 0o755 });
    const sandbox = detectSandbox({ env: { PATH: `relative/dir${path.delimiter}${dir}` }, platform: 'linux' });
    assert.equal(sandbox.available, false);
    assert.equal(!sandbox.available && sandbox.reason, `${fake} is installed but cannot start a sandbox here (exit 1: bwrap: No permissions to creating new namespace)`);
  });

  it('has no sandbox on Windows, or on macOS without /usr/bin/sandbox-exec', () => {
    const windows = detectSandbox({ env: { PATH: dir }, platform: 'win32' });
    assert.equal(sandboxLine(windows), 'No OS sandbox: hooks run with your full user permissions, because Garuda has no OS sandbox for Windows.');
    const mac = detectSandbox({ env: { PATH: dir }, platform: 'darwin' });
    assert.equal(!mac.available && mac.reason, '/usr/bin/sandbox-exec is missing');
  });

  it('detects once per process for each platform and PATH', () => {
    assert.equal(detectSandbox({ env: { PATH: dir }, platform: 'linux' }), detectSandbox({ env: { PATH: dir }, platform: 'linux' }));
  });
});

describe('sandbox commands', () => {
  it('runs sh -c directly when there is no sandbox, with nothing added to the environment', () => {
    const none = detectSandbox({ env: { PATH: '' }, platform: 'win32' });
    assert.deepEqual(sandboxedCommand(none, 'echo hi', policy), { argv: ['/bin/sh', '-c', 'echo hi'], env: {} });
  });

  it('gives bwrap a read-only system, a writable root and temp folder, private /tmp, /dev and /proc, and no network', () => {
    assert.deepEqual(bwrapArgv('/usr/bin/bwrap', 'echo hi', policy), [
      '/usr/bin/bwrap',
      '--ro-bind', '/', '/',
      '--dev', '/dev',
      '--proc', '/proc',
      '--tmpfs', '/tmp',
      '--bind', '/work/project', '/work/project',
      '--bind', '/tmp/garuda-hook-x', '/tmp/garuda-hook-x',
      '--unshare-pid',
      '--unshare-ipc',
      '--unshare-net',
      '--die-with-parent',
      '--chdir', '/work/project',
      '--',
      '/bin/sh', '-c', 'echo hi',
    ]);
    assert.equal(bwrapArgv('/usr/bin/bwrap', 'x', { ...policy, network: true }).includes('--unshare-net'), false);
  });

  it('points TMPDIR at the run temp folder inside a sandbox', () => {
    assert.deepEqual(sandboxedCommand(bwrapSandbox(), 'x', policy).env, { TMPDIR: '/tmp/garuda-hook-x' });
  });

  // The expected profiles are files beside the tests, so they read as what sandbox-exec gets.
  const golden = (name: string) => fs.readFile(path.resolve('test/unit/golden', name), 'utf8');

  it('writes a macOS profile that denies by default, reads everywhere and writes only to ROOT and TEMP', async () => {
    const profile = macosProfile(false);
    assert.equal(profile, await golden('macos-profile.sb'));
    assert.doesNotMatch(profile, /network/);
    // Every list the profile opens, it closes: sandbox-exec rejects the whole profile otherwise.
    assert.equal(profile.split('(').length, profile.split(')').length);
  });

  it('allows the network in the macOS profile only with network: true, with the services it needs', async () => {
    assert.equal(macosProfile(true), await golden('macos-profile-network.sb'));
  });

  it('passes paths to sandbox-exec as parameters, never inside the profile text', () => {
    const odd = { root: '/Users/a "b"/proj)', tempDir: '/private/var/folders/x/T/garuda-hook-1', network: false };
    assert.deepEqual(sandboxExecArgv('echo hi', odd), [
      '/usr/bin/sandbox-exec',
      '-p', macosProfile(false),
      '-D', 'ROOT=/Users/a "b"/proj)',
      '-D', 'TEMP=/private/var/folders/x/T/garuda-hook-1',
      '/bin/sh', '-c', 'echo hi',
    ]);
  });
});

describe('hooks in the bwrap sandbox', () => {
  let env: Awaited<ReturnType<typeof fixture>>;
  beforeEach(async () => {
    env = await fixture();
  });
  afterEach(() => env.cleanup());

  const runner = () => createHookRunner({ sandbox: bwrapSandbox() });
  const withHooks = async (hooks: unknown) => {
    await writeJson(userHooks(env.home), { hooks });
    return loadHookSet({ home: env.home, root: env.root, policy: { file: path.join(env.home, 'no-policy.json'), explicit: false } });
  };
  const bash = { tool: 'bash', input: { command: 'ls' } };

  it('cannot reach a server on the host loopback, and can with network: true', async () => {
    let connections = 0;
    const server = net.createServer((socket) => {
      connections++;
      socket.end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as net.AddressInfo;
    const connect = `"${process.execPath}" -e "require('net').connect(${port}, '127.0.0.1').on('connect', () => process.exit(0)).on('error', (e) => { console.error(e.code); process.exit(2); })"`;
    try {
      const offline = await runner().preToolUse(await withHooks({ preToolUse: [{ command: connect }] }), bash);
      assert.deepEqual([offline.decision, offline.reason, connections], ['deny', 'ECONNREFUSED', 0]);
      const online = await runner().preToolUse(await withHooks({ preToolUse: [{ command: connect, network: true }] }), bash);
      assert.deepEqual([online.decision, online.warnings, connections], ['allow', [], 1]);
    } finally {
      server.close();
    }
  });

  it('writes inside the root and its temp folder, but nowhere else', async () => {
    const outside = await fs.mkdtemp('/var/tmp/garuda-outside-');
    const hostTmp = await tempDir();
    try {
      const set = await withHooks({
        postToolUse: [{
          command: `echo in > inside.txt; echo tmp > "$TMPDIR/t" && echo tmp-ok; echo out > ${outside}/f; echo host-tmp > ${hostTmp}/f; ls ${hostTmp}; exit 2`,
        }],
      });
      const outcome = await createHookRunner({ sandbox: bwrapSandbox() }).postToolUse(set, bash, '');
      assert.equal(await fs.readFile(path.join(env.root, 'inside.txt'), 'utf8'), 'in\n');
      assert.deepEqual(await fs.readdir(outside), []);
      assert.deepEqual(await fs.readdir(hostTmp), []);
      const lines = outcome.feedback!.split('\n').slice(1, -1);
      assert.deepEqual(lines, [
        `/bin/sh: 1: cannot create ${outside}/f: Read-only file system`,
        `/bin/sh: 1: cannot create ${hostTmp}/f: Directory nonexistent`,
        `ls: cannot access '${hostTmp}': No such file or directory`,
      ]);
      assert.equal(outcome.runs[0]!.stdout, 'tmp-ok');
    } finally {
      await fs.rm(outside, { recursive: true, force: true });
      await fs.rm(hostTmp, { recursive: true, force: true });
    }
  });

  it('can read its input file, in a new PID namespace that hides the host processes', async () => {
    const set = await withHooks({
      preToolUse: [{ command: `cat "$GARUDA_HOOK_INPUT" > input-copy.json; test -e /proc/${process.pid} && echo host pids visible >&2 && exit 2; exit 0` }],
    });
    const outcome = await runner().preToolUse(set, bash);
    assert.deepEqual([outcome.decision, outcome.warnings], ['allow', []]);
    const payload = JSON.parse(await fs.readFile(path.join(env.root, 'input-copy.json'), 'utf8'));
    assert.deepEqual([payload.event, payload.tool, payload.input, payload.root], ['preToolUse', 'bash', { command: 'ls' }, env.root]);
  });

  it('kills everything a sandboxed hook started when it times out', async () => {
    const token = `${Date.now() % 1000}.${process.pid}`;
    const set = await withHooks({
      preToolUse: [{ command: `sleep 60${token} & sh -c 'sleep 61${token}' & sleep 62${token}`, timeoutMs: 500 }],
    });
    const outcome = await runner().preToolUse(set, bash);
    assert.deepEqual([outcome.decision, outcome.runs[0]!.timedOut], ['deny', true]);
    assert.ok(await waitFor(async () => (await processesWith(token)).length === 0), `still running: ${await processesWith(token)}`);
  });

  it('dies with the process that started it, even one killed with SIGKILL', async () => {
    bwrapSandbox();
    const token = `63${Date.now() % 1000}.${process.pid}`;
    const child = spawn(process.execPath, [worker('run-sandboxed'), env.root, `sleep ${token}`], { stdio: 'inherit' });
    try {
      const sleeping = (argv: string[]) => argv[0] === 'sleep';
      assert.ok(await waitFor(async () => (await processesWith(token, sleeping)).length > 0), 'the sandboxed hook never started');
    } finally {
      child.kill('SIGKILL');
    }
    assert.ok(await waitFor(async () => (await processesWith(token)).length === 0), `still running: ${await processesWith(token)}`);
  });
});
