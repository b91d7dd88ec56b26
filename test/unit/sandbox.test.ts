import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { constants, promises as fs, readdirSync, readlinkSync, renameSync, symlinkSync } from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { bwrapArgv, bwrapHost, bwrapNestedArgv, bwrapWarmArgv, withProtectedPaths, type BwrapHost, type OpenProtectedPaths } from '../../src/core/bwrap';
import { loadHookSet } from '../../src/core/hookSet';
import { macosProfile, sandboxExecArgv } from '../../src/core/macosProfile';
import { runCommand } from '../../src/core/executor';
import { createHookRunner } from '../../src/core/runner';
import { detectSandbox, sandboxLine, withSandboxedCommand } from '../../src/core/sandbox';
import { WarmSandboxes } from '../../src/core/warmSandbox';
import { bwrapSandbox, fixture, processesWith, tempDir, userHooks, waitFor, worker, writeJson } from './helpers';

const policy = { root: '/work/project', tempDir: '/tmp/garuda-hook-x', network: false };
const LIMITS = 'hooks can write only in the workspace and a private temp folder, and reach the network only with "network": true.';

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
    const sandbox = detectSandbox({ env: { PATH: `relative/dir${path.delimiter}${dir}` }, platform: 'linux', systemDirs: [dir] });
    assert.equal(sandbox.available, false);
    assert.equal(!sandbox.available && sandbox.reason, `${fake} is installed but cannot start a sandbox here (exit 1: bwrap: No permissions to creating new namespace)`);
  });

  it('ignores a bwrap earlier on PATH outside the system folders, and has no sandbox when that is the only one', async () => {
    const fake = path.join(dir, 'bwrap');
    await fs.writeFile(fake, '#!/bin/sh\nexit 0\n', { mode: 0o755 });
    const system = detectSandbox({ env: { PATH: `${dir}${path.delimiter}/usr/bin/` }, platform: 'linux' });
    assert.deepEqual([system.name, system.available && system.program], ['bwrap', '/usr/bin/bwrap']);
    const only = detectSandbox({ env: { PATH: dir }, platform: 'linux' });
    const reason = `the only bwrap on PATH is ${fake}, outside the system folders (/usr/bin, /bin, /usr/local/bin, /usr/sbin, /sbin) where Garuda trusts it`;
    assert.deepEqual(only, { name: 'none', available: false, reason, description: `hooks run with your full user permissions, because ${reason}.` });
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
    assert.deepEqual(withSandboxedCommand(none, 'echo hi', policy, (command) => command), { argv: ['/bin/sh', '-c', 'echo hi'], env: {}, fds: [] });
  });

  const host: BwrapHost = { run: true, varTmp: true };

  it('gives bwrap a read-only system and /dev, a writable root and temp folder, private /tmp and /dev/shm, fresh /proc, no capabilities and no network', () => {
    assert.deepEqual(bwrapArgv('/usr/bin/bwrap', 'echo hi', policy, host, []), [
      '/usr/bin/bwrap',
      '--ro-bind', '/', '/',
      '--bind', '/work/project', '/work/project',
      '--dev', '/dev',
      '--remount-ro', '/dev',
      '--proc', '/proc',
      '--tmpfs', '/dev/shm',
      '--tmpfs', '/tmp',
      '--tmpfs', '/run',
      '--tmpfs', '/var/tmp',
      '--bind', '/tmp/garuda-hook-x', '/tmp/garuda-hook-x',
      '--unsetenv', 'SSH_AUTH_SOCK',
      '--unsetenv', 'DBUS_SESSION_BUS_ADDRESS',
      '--unsetenv', 'DBUS_SYSTEM_BUS_ADDRESS',
      '--unshare-pid',
      '--unshare-ipc',
      '--die-with-parent',
      '--chdir', '/work/project',
      '--unshare-net',
      '--cap-drop', 'ALL',
      '--',
      '/bin/sh', '-c', 'echo hi',
    ]);
    // A root in /tmp can only be mounted after the private /tmp; a temp folder in the root needs no bind.
    const inTmp = bwrapArgv('/usr/bin/bwrap', 'x', { root: '/tmp/project', tempDir: '/tmp/project', network: false }, host, []);
    assert.deepEqual(inTmp.slice(inTmp.indexOf('--tmpfs'), inTmp.indexOf('--unsetenv')), ['--tmpfs', '/dev/shm', '--tmpfs', '/tmp', '--tmpfs', '/run', '--tmpfs', '/var/tmp', '--bind', '/tmp/project', '/tmp/project']);
    assert.equal(bwrapArgv('/usr/bin/bwrap', 'x', { ...policy, network: true }, host, []).includes('--unshare-net'), false);
  });

  it('binds the protected folders and files of the root read-only as opened, only those that are there and not behind a symlink', async () => {
    const root = await tempDir();
    try {
      for (const dir of ['.git', '.husky', '.github/hooks', 'config/vscode']) await fs.mkdir(path.join(root, dir), { recursive: true });
      await fs.writeFile(path.join(root, '.envrc'), '');
      await fs.symlink('config/vscode', path.join(root, '.vscode'));
      // Followed inside the sandbox, this would put the host's /tmp over the sandbox's.
      await fs.symlink(`${'../'.repeat(root.split('/').length - 1)}tmp`, path.join(root, '.claude'));
      // Opening a FIFO to read would wait for a writer.
      execFileSync('mkfifo', [path.join(root, '.devcontainer')]);
      const expected = ['.git', '.github/hooks', '.husky', '.envrc', '.devcontainer'].map((name) => path.join(root, name));
      const opened = withProtectedPaths(root, (paths) => {
        // Open while the command starts: each descriptor leads to its path.
        assert.deepEqual(paths.fds.map((fd) => readlinkSync(`/proc/self/fd/${fd}`)), expected);
        return paths;
      });
      assert.deepEqual(opened.binds.map((bind) => bind.path), expected);
      assert.deepEqual(opened.binds.map((bind) => bind.fd), [3, 4, 5, 6, 7]);
      const argv = bwrapArgv('/usr/bin/bwrap', 'x', { ...policy, root }, host, opened.binds);
      assert.deepEqual(argv.flatMap((arg, i) => (arg === '--ro-bind-fd' ? [`${argv[i + 1]} ${argv[i + 2]}`] : [])), expected.map((file, i) => `${i + 3} ${file}`));
      // Closed once the command has started.
      assert.deepEqual(openFilesUnder(root), []);
      // .github/hooks behind a symlinked .github is not followed either.
      await fs.rm(path.join(root, '.github'), { recursive: true });
      await fs.symlink('config', path.join(root, '.github'));
      await fs.mkdir(path.join(root, 'config/hooks'));
      const again = withProtectedPaths(root, (paths) => paths);
      assert.equal(again.binds.some((bind) => bind.path === path.join(root, '.github/hooks')), false);
    } finally {
      await fs.rm(root, { recursive: true, force: true });
    }
  });

  it('nests each hook of a warm sandbox in a sandbox of its own: the same fresh parts, the warm one\'s system, /dev and network', () => {
    const perRun = bwrapArgv('/usr/bin/bwrap', 'echo hi', policy, host, []);
    const nested = bwrapNestedArgv('/usr/bin/bwrap', 'echo hi', policy, host, []);
    assert.deepEqual(nested.slice(0, 4), ['/usr/bin/bwrap', '--dev-bind', '/', '/']);
    const without = (argv: string[], ...parts: string[][]) => parts.reduce((joined, part) => joined.replace(`\0${part.join('\0')}`, ''), argv.join('\0')).split('\0');
    assert.deepEqual(nested.slice(4), without(perRun, ['--dev', '/dev', '--remount-ro', '/dev'], ['--unshare-net']).slice(4));
    // The warm sandbox itself: a sandbox per run without the temp folder, keeping its capabilities to nest.
    const warm = bwrapWarmArgv('/usr/bin/bwrap', { root: policy.root, network: false }, host);
    const perRunArgs = without(perRun, ['--bind', policy.tempDir, policy.tempDir], ['--cap-drop', 'ALL']);
    assert.deepEqual(warm, perRunArgs.slice(0, perRunArgs.indexOf('--') + 1));
  });

  it('empties /run only without network, never a symlinked /run, and always /var/tmp and a runtime folder outside /run', () => {
    const emptied = (network: boolean, on: BwrapHost) => {
      const argv = bwrapArgv('/usr/bin/bwrap', 'x', { ...policy, network }, on, []);
      return argv.flatMap((arg, i) => (arg === '--tmpfs' && !['/tmp', '/dev/shm'].includes(argv[i + 1]!) ? [argv[i + 1]] : []));
    };
    const underRun = { run: true, varTmp: true, runtimeDir: '/run/user/1000' };
    assert.deepEqual(emptied(false, underRun), ['/run', '/var/tmp']);
    // /etc/resolv.conf may point into /run: a hook with network keeps it, but not the user's own sockets.
    assert.deepEqual(emptied(true, underRun), ['/var/tmp', '/run/user/1000']);
    assert.deepEqual(emptied(false, { run: false, varTmp: false, runtimeDir: '/home/u/.run' }), ['/home/u/.run']);
  });

  it('reads /run, /var/tmp and a real, absolute $XDG_RUNTIME_DIR from the host', async () => {
    const dir = await tempDir();
    try {
      await fs.symlink(dir, `${dir}-link`);
      assert.deepEqual(bwrapHost({ XDG_RUNTIME_DIR: `${dir}-link` }), { run: true, varTmp: true, runtimeDir: dir });
      assert.deepEqual(bwrapHost({ XDG_RUNTIME_DIR: 'relative' }), { run: true, varTmp: true });
      assert.deepEqual(bwrapHost({ XDG_RUNTIME_DIR: path.join(dir, 'missing') }), { run: true, varTmp: true });
    } finally {
      await fs.rm(`${dir}-link`, { force: true });
      await fs.rm(dir, { recursive: true, force: true });
    }
  });

  it('points TMPDIR at the run temp folder inside a sandbox', () => {
    assert.deepEqual(withSandboxedCommand(bwrapSandbox(), 'x', policy, (command) => command.env), { TMPDIR: '/tmp/garuda-hook-x' });
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

// The CLI starts a sandbox per run; the editor keeps warm ones: both must isolate alike.
for (const mode of ['a sandbox per run', 'a warm sandbox'] as const) describe(`hooks in the bwrap sandbox (${mode})`, () => {
  let env: Awaited<ReturnType<typeof fixture>>;
  let warmSandboxes: WarmSandboxes | undefined;
  beforeEach(async () => {
    env = await fixture();
    warmSandboxes = mode === 'a warm sandbox' ? new WarmSandboxes() : undefined;
  });
  afterEach(async () => {
    warmSandboxes?.dispose();
    await env.cleanup();
  });

  const runner = (hostEnv?: NodeJS.ProcessEnv) => createHookRunner({ sandbox: bwrapSandbox(), ...(warmSandboxes && { warmSandboxes }), ...(hostEnv && { env: hostEnv }) });
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
    // A folder the host can write to and the sandbox shows read-only: in the home folder, not in /tmp,
    // /var/tmp or /run (which the sandbox replaces, and where a CI checkout may well live).
    const outside = await fs.mkdtemp(path.join(os.homedir(), '.garuda-outside-'));
    const hostTmp = await tempDir();
    try {
      const set = await withHooks({
        postToolUse: [{
          command: `echo in > inside.txt; echo tmp > "$TMPDIR/t" && echo tmp-ok; echo out > ${outside}/f; echo host-tmp > ${hostTmp}/f; ls ${hostTmp}; exit 2`,
        }],
      });
      const outcome = await runner().postToolUse(set, bash, '');
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

  it('cannot connect to Unix sockets in /run or /var/tmp without network; with network: true only to those in /run', async () => {
    const id = randomUUID().slice(0, 8);
    // Root may create sockets in /run itself; anyone else in their runtime folder under /run/user.
    const runDir = await fs.access('/run', constants.W_OK).then(() => '/run', () => process.env.XDG_RUNTIME_DIR ?? '/run');
    const sockets = [path.join(runDir, `garuda-test-${id}.sock`), `/var/tmp/garuda-test-${id}.sock`];
    let connections = 0;
    const servers = await Promise.all(sockets.map((socketPath) => new Promise<net.Server>((resolve, reject) => {
      const server = net.createServer((socket) => {
        connections++;
        socket.end();
      });
      server.once('error', reject).listen(socketPath, () => resolve(server));
    })));
    const script = path.join(env.root, 'connect.js');
    await fs.writeFile(script, `
      const net = require('net');
      const tries = process.argv.slice(2).map((p) => new Promise((resolve) => {
        net.connect(p).on('connect', function () { this.end(); resolve(p + ': connected'); }).on('error', (e) => resolve(p + ': ' + e.code));
      }));
      Promise.all(tries).then((lines) => { console.error(lines.join('\\n')); process.exit(2); });
    `);
    const connect = `"${process.execPath}" connect.js ${sockets.join(' ')}`;
    try {
      const offline = await runner().preToolUse(await withHooks({ preToolUse: [{ command: connect }] }), bash);
      assert.deepEqual([offline.decision, offline.reason, connections], ['deny', `${sockets[0]}: ENOENT\n${sockets[1]}: ENOENT`, 0]);
      const online = await runner().preToolUse(await withHooks({ preToolUse: [{ command: connect, network: true }] }), bash);
      // A runtime folder under /run is emptied even with network: only /run's own sockets stay.
      const inRun = runDir === '/run' ? 'connected' : 'ENOENT';
      assert.deepEqual([online.decision, online.reason, connections], ['deny', `${sockets[0]}: ${inRun}\n${sockets[1]}: ENOENT`, runDir === '/run' ? 1 : 0]);
    } finally {
      await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
      await Promise.all(sockets.map((socketPath) => fs.rm(socketPath, { force: true })));
    }
  });

  it('does not inherit the ssh agent or the D-Bus addresses', async () => {
    const set = await withHooks({
      preToolUse: [{ command: 'echo "${SSH_AUTH_SOCK-unset} ${DBUS_SESSION_BUS_ADDRESS-unset} ${DBUS_SYSTEM_BUS_ADDRESS-unset} $KEPT" >&2; exit 2' }],
    });
    const vars = { SSH_AUTH_SOCK: '/x/agent.sock', DBUS_SESSION_BUS_ADDRESS: 'unix:path=/x/bus', DBUS_SYSTEM_BUS_ADDRESS: 'unix:path=/x/system', KEPT: 'kept' };
    const outcome = await runner({ ...process.env, ...vars }).preToolUse(set, bash);
    assert.deepEqual([outcome.decision, outcome.reason], ['deny', 'unset unset unset kept']);
  });

  it('cannot write where git, editors and agents find commands to run, but writes the rest of the root', async () => {
    for (const dir of ['.git/hooks', '.vscode', '.garuda', 'src']) await fs.mkdir(path.join(env.root, dir), { recursive: true });
    await fs.writeFile(path.join(env.root, '.git/config'), '[core]\n');
    await fs.writeFile(path.join(env.root, '.envrc'), '');
    const set = await withHooks({
      postToolUse: [{
        command: 'echo x > .git/hooks/x; echo "[core] fsmonitor = evil" >> .git/config; echo {} > .vscode/tasks.json; echo {} > .garuda/hooks.json; echo evil >> .envrc; echo a > src/a.txt; exit 2',
      }],
    });
    const outcome = await runner().postToolUse(set, bash, '');
    assert.deepEqual(outcome.feedback!.split('\n').slice(1, -1), [
      '/bin/sh: 1: cannot create .git/hooks/x: Read-only file system',
      '/bin/sh: 1: cannot create .git/config: Read-only file system',
      '/bin/sh: 1: cannot create .vscode/tasks.json: Read-only file system',
      '/bin/sh: 1: cannot create .garuda/hooks.json: Read-only file system',
      '/bin/sh: 1: cannot create .envrc: Read-only file system',
    ]);
    assert.equal(await fs.readFile(path.join(env.root, '.git/config'), 'utf8'), '[core]\n');
    assert.deepEqual(await Promise.all(['.git/hooks', '.vscode', '.garuda'].map((dir) => fs.readdir(path.join(env.root, dir)))), [[], [], []]);
    assert.equal(await fs.readFile(path.join(env.root, 'src/a.txt'), 'utf8'), 'a\n');
  });

  it('cannot write /dev, has a /dev/shm of its own, and no capabilities, even as root', async () => {
    const set = await withHooks({ postToolUse: [{ command: 'echo x > /dev/planted; echo shm > /dev/shm/s && cat /dev/shm/s; grep CapEff /proc/self/status; exit 2' }] });
    const outcome = await runner().postToolUse(set, bash, '');
    assert.deepEqual(outcome.feedback!.split('\n').slice(1, -1), ['/bin/sh: 1: cannot create /dev/planted: Read-only file system']);
    assert.equal(outcome.runs[0]!.stdout, 'shm\nCapEff:\t0000000000000000');
  });

  it('does not follow a protected path that a hook made a symlink out of the root', async () => {
    const marker = `/tmp/garuda-marker-${randomUUID()}`;
    await fs.writeFile(marker, 'host');
    try {
      // Climbs to / from the root: followed inside the sandbox, the host's /tmp would cover the sandbox's.
      const plant = await withHooks({ postToolUse: [{ command: `ln -s ${'../'.repeat(env.root.split('/').length - 1)}tmp .claude` }] });
      await runner().postToolUse(plant, bash, '');
      const look = await withHooks({ postToolUse: [{ command: `cat ${marker} 2>/dev/null; readlink .claude` }] });
      assert.equal((await runner().postToolUse(look, bash, '')).runs[0]!.stdout, `${'../'.repeat(env.root.split('/').length - 1)}tmp`);
    } finally {
      await fs.rm(marker, { force: true });
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
    const child = spawn(process.execPath, [worker('run-sandboxed'), env.root, `sleep ${token}`, mode], { stdio: 'inherit' });
    try {
      const sleeping = (argv: string[]) => argv[0] === 'sleep';
      assert.ok(await waitFor(async () => (await processesWith(token, sleeping)).length > 0), 'the sandboxed hook never started');
    } finally {
      child.kill('SIGKILL');
    }
    assert.ok(await waitFor(async () => (await processesWith(token)).length === 0), `still running: ${await processesWith(token)}`);
  });
});

describe('a protected folder swapped for a symlink while its sandbox starts', () => {
  // As if a hook running at the same time swapped it between openProtectedPaths and bwrap's mount.
  let outer: string;
  let marker: string;
  beforeEach(async () => {
    outer = await fs.mkdtemp(path.join(os.homedir(), '.garuda-race-'));
    marker = `/tmp/garuda-marker-${randomUUID()}`;
    await fs.writeFile(marker, 'host');
  });
  afterEach(async () => {
    await fs.rm(outer, { recursive: true, force: true });
    await fs.rm(marker, { force: true });
  });

  /**
   * Starts `argv(opened)` with the protected paths of `root` open, after swapping its protected folder
   * for a symlink that climbs to /tmp when `swap` is set.
   */
  const run = async (root: string, swap: boolean, argv: (opened: OpenProtectedPaths) => string[]) => {
    await fs.mkdir(path.join(root, '.claude'), { recursive: true });
    const result = await withProtectedPaths(root, (opened) => {
      if (swap) {
        renameSync(path.join(root, '.claude'), path.join(root, 'moved'));
        symlinkSync(`${'../'.repeat(root.split('/').length - 1)}tmp`, path.join(root, '.claude'));
      }
      return runCommand({ command: '', argv: argv(opened), cwd: root, env: { PATH: process.env.PATH }, stdin: '', timeoutMs: 10_000, fds: opened.fds });
    });
    return { exitCode: result.exitCode, output: `${result.stdout}${result.stderr}`.trim() };
  };
  const look = (file: string) => `cat ${file} 2>/dev/null || echo hidden`;
  // bwrap checks that the path it mounts on still leads to the opened file, and refuses to start: the
  // hook never ran. In the root the swapped symlink leads out of the new root, in /tmp back into it.
  const REFUSED = /^bwrap: (Race condition binding dirfd|Can't bind mount \S+ on \S+\/\.claude: realpath\(destination\))/;

  // Outside /tmp, where workspaces live, and inside it, which is mounted before the root.
  for (const where of ['in the home folder', 'in /tmp'] as const) {
    it(`refuses to start a sandbox per run, for a root ${where}, and starts it when nothing was swapped`, async () => {
      const root = where === 'in /tmp' ? await fs.mkdtemp('/tmp/garuda-race-') : outer;
      try {
        const argv = ({ binds }: OpenProtectedPaths) => bwrapArgv(bwrapSandbox().program, look(marker), { root, tempDir: root, network: false }, bwrapHost(), binds);
        assert.deepEqual(await run(root, false, argv), { exitCode: 0, output: 'hidden' });
        const swapped = await run(root, true, argv);
        assert.notEqual(swapped.exitCode, 0);
        assert.match(swapped.output, REFUSED);
      } finally {
        if (root !== outer) await fs.rm(root, { recursive: true, force: true });
      }
    });
  }

  it('refuses to start a sandbox nested in a warm one, whose /tmp holds other runs\' temp folders', async () => {
    const { program } = bwrapSandbox();
    const warm = [...bwrapWarmArgv(program, { root: outer, network: false }, bwrapHost()), '/bin/sh', '-c', 'echo other > /tmp/other-run && exec "$@"', 'sh'];
    const argv = ({ binds }: OpenProtectedPaths) => [...warm, ...bwrapNestedArgv(program, look('/tmp/other-run'), { root: outer, tempDir: outer, network: false }, bwrapHost(), binds)];
    assert.deepEqual(await run(outer, false, argv), { exitCode: 0, output: 'hidden' });
    const swapped = await run(outer, true, argv);
    assert.notEqual(swapped.exitCode, 0);
    assert.match(swapped.output, REFUSED);
  });
});

/** This process's open files that lead into `dir`. */
function openFilesUnder(dir: string): string[] {
  return readdirSync('/proc/self/fd').flatMap((fd) => {
    try {
      const target = readlinkSync(`/proc/self/fd/${fd}`);
      return target.startsWith(`${dir}/`) ? [target] : [];
    } catch {
      return [];
    }
  });
}
