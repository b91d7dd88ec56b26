import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { loadHookSet, type HookSet } from '../../src/core/hookSet';
import { createHookRunner, type HookRunner } from '../../src/core/runner';
import { WarmSandboxes, type WarmSandboxOptions } from '../../src/core/warmSandbox';
import { bwrapSandbox, fixture, processesWith, projectHooks, userHooks, waitFor, worker, writeJson } from './helpers';

// What a warm sandbox adds to a sandbox per run; the isolation both give is tested in sandbox.test.ts.
describe('warm bwrap sandboxes', () => {
  let env: Awaited<ReturnType<typeof fixture>>;
  let warmSandboxes: WarmSandboxes;
  let runner: HookRunner;
  const bash = { tool: 'bash', input: { command: 'ls' } };
  /** Names the hook's network namespace: one per warm sandbox without network. */
  const NETWORK = 'readlink /proc/self/ns/net';
  /** The outer bwrap processes of the warm sandboxes for the fixture's root, by the host's /proc. */
  const warmProcesses = () => processesWith(env.root, (argv) => argv[0]!.endsWith('bwrap') && argv.includes('-e'));

  const start = (options: WarmSandboxOptions = {}) => {
    warmSandboxes = new WarmSandboxes(options);
    runner = createHookRunner({ sandbox: bwrapSandbox(), warmSandboxes });
  };
  const withHooks = async (user: unknown, project?: unknown): Promise<HookSet> => {
    await writeJson(userHooks(env.home), { hooks: user });
    if (project) await writeJson(projectHooks(env.root), { hooks: project });
    // The consent question is not what these tests are about.
    return loadHookSet({ home: env.home, root: env.root, policy: { file: path.join(env.home, 'no-policy.json'), explicit: false }, consentOverride: () => 'allowed' });
  };
  const stdoutOf = async (set: HookSet) => (await runner.postToolUse(set, bash, '')).runs.map((run) => run.stdout);

  beforeEach(async () => {
    env = await fixture();
    start();
  });
  afterEach(async () => {
    warmSandboxes.dispose();
    await env.cleanup();
  });

  it('runs the hooks of one root, source and network setting in one sandbox', async () => {
    const set = await withHooks(
      { postToolUse: [{ command: NETWORK }, { command: 'true', network: true }] },
      { postToolUse: [{ command: NETWORK }] },
    );
    const [user, , project] = await stdoutOf(set);
    const [userAgain] = await stdoutOf(set);
    assert.equal(userAgain, user);
    assert.notEqual(project, user);
    assert.equal(warmSandboxes.size, 3);
  });

  it('gives each hook its own processes, /tmp, /dev/shm, /var/tmp and IPC, so nothing one left reaches the next', async () => {
    const token = `30${Date.now() % 1000}.${process.pid}`;
    const set = await withHooks({
      postToolUse: [{ command: `setsid sleep ${token} >/dev/null 2>&1 </dev/null & for dir in /tmp /dev/shm /var/tmp "$TMPDIR"; do echo left > $dir/left; done; ipcmk -M 1024 >/dev/null; echo "$TMPDIR"` }],
    });
    const [tempFolder] = await stdoutOf(set);
    assert.ok(await waitFor(async () => (await processesWith(token)).length === 0), `still running: ${await processesWith(token)}`);
    const later = await withHooks({
      // The shell expands the pattern itself: the nested bwrap's pid 1 and this shell.
      postToolUse: [{ command: `echo /proc/[0-9]*; find /dev/shm /var/tmp "$TMPDIR" -mindepth 1; echo --; ls -A /tmp; echo --; test -e "${tempFolder}" && echo "${tempFolder} is still there"; ipcs -m | grep -c 0x; true` }],
    });
    const [clean] = await stdoutOf(later);
    const [[processes, ...found], inTmp, rest] = clean!.split('\n--\n').map((part) => part.split('\n'));
    assert.equal(processes!.split(' ').length, 2, `processes: ${processes}`);
    assert.equal(found.length, 1, clean);
    assert.match(found[0]!, /^\/tmp\/garuda-hook-\w+\/input\.json$/);
    // Only the folders on the way to the root, when it lives in /tmp, and the run's own temp folder.
    const towardsRoot = path.relative('/tmp', env.root).startsWith('..') ? [] : [path.relative('/tmp', env.root).split('/')[0]!];
    assert.deepEqual(inTmp!.filter((name) => name !== path.basename(path.dirname(found[0]!))), towardsRoot);
    assert.deepEqual(rest, ['0']);
  });

  it('keeps its sandbox when a hook kills every process it can see', async () => {
    const set = await withHooks({ postToolUse: [{ command: `${NETWORK}; kill -9 -1; sleep 1` }] });
    const [first] = await stdoutOf(set);
    const [second] = await stdoutOf(await withHooks({ postToolUse: [{ command: NETWORK }] }));
    assert.equal(second, first!.split('\n')[0]);
    assert.equal(warmSandboxes.size, 1);
  });

  it('makes a protected folder read-only as it is when the hook starts, not as it was when the sandbox started', async () => {
    const set = await withHooks({ postToolUse: [{ command: 'mkdir -p .git/hooks && echo made > .git/hooks/pre-commit; exit 2' }] });
    assert.equal((await runner.postToolUse(set, bash, '')).feedback, undefined);
    // `git init` while the editor is open; on ext4 the new folder may even get the old one's inode.
    await fs.rm(path.join(env.root, '.git'), { recursive: true });
    await fs.mkdir(path.join(env.root, '.git/hooks'), { recursive: true });
    const outcome = await runner.postToolUse(set, bash, '');
    assert.match(outcome.feedback!, /cannot create \.git\/hooks\/pre-commit: Read-only file system/);
    assert.deepEqual(await fs.readdir(path.join(env.root, '.git/hooks')), []);
    assert.equal(warmSandboxes.size, 1);
  });

  it('fails the hooks of a sandbox that ends under them as crashed hooks, and runs the next call in a new sandbox', async () => {
    const set = await withHooks({ preToolUse: [{ command: `${NETWORK} > network.txt; sleep 5` }] });
    const blocked = runner.preToolUse(set, bash);
    assert.ok(await waitFor(async () => (await fs.readFile(path.join(env.root, 'network.txt'), 'utf8').catch(() => '')) !== ''));
    for (const pid of await warmProcesses()) process.kill(pid, 'SIGKILL');
    const outcome = await blocked;
    assert.equal(outcome.decision, 'deny');
    assert.match(outcome.reason!, /^A guard failed \(killed by SIGKILL\), and guards block the call when they fail: the hook's sandbox ended while it ran: its worker ended/);
    const [network] = await stdoutOf(await withHooks({ postToolUse: [{ command: NETWORK }] }));
    assert.notEqual(network, (await fs.readFile(path.join(env.root, 'network.txt'), 'utf8')).trim());
    assert.equal(warmSandboxes.size, 1);
  });

  it('runs the hooks of one call at the same time', async () => {
    // Each waits for all four to have started: run one after another, they would all time out.
    const arrive = (n: number) => `touch arrived-${n}; i=0; while [ "$(ls arrived-* | wc -l)" -lt 4 ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i+1)); done; ls arrived-* | wc -l`;
    const set = await withHooks({ postToolUse: [1, 2, 3, 4].map((n) => ({ command: arrive(n), timeoutMs: 15_000 })) });
    assert.deepEqual(await stdoutOf(set), ['4', '4', '4', '4']);
  });

  it('closes a sandbox that has been idle, and leaves nothing running', async () => {
    start({ idleMs: 50 });
    await stdoutOf(await withHooks({ postToolUse: [{ command: 'true' }] }));
    assert.ok(await waitFor(() => warmSandboxes.size === 0), 'the sandbox stayed up');
    assert.ok(await waitFor(async () => (await processesWith(env.root)).length === 0), `still running: ${await processesWith(env.root)}`);
  });

  it('does not keep the process that uses it alive while idle', async () => {
    // The worker runs one hook and never disposes its sandboxes: it must still exit, long before they close.
    await new Promise<void>((resolve, reject) => {
      execFile(process.execPath, [worker('run-sandboxed'), env.root, 'true', 'a warm sandbox'], { timeout: 15_000 }, (error) => (error ? reject(error) : resolve()));
    });
  });

  it('leaves nothing running when disposed', async () => {
    await stdoutOf(await withHooks({ postToolUse: [{ command: 'true' }] }));
    assert.notDeepEqual(await warmProcesses(), []);
    warmSandboxes.dispose();
    assert.ok(await waitFor(async () => (await processesWith(env.root)).length === 0), `still running: ${await processesWith(env.root)}`);
  });

  it('runs each hook in a sandbox of its own, and says so once, when the worker cannot start', async () => {
    const problems: string[] = [];
    start({ runtime: path.join(os.tmpdir(), 'no-such-node'), onProblem: (message) => problems.push(message) });
    const set = await withHooks({ postToolUse: [{ command: NETWORK }] });
    const [first] = await stdoutOf(set);
    const [second] = await stdoutOf(set);
    assert.notEqual(first, second);
    assert.deepEqual(problems, [`The warm hook sandbox for ${env.root} could not start (bwrap: execvp ${path.join(os.tmpdir(), 'no-such-node')}: No such file or directory); each hook starts a sandbox of its own for the next 10 minutes.`]);
  });

  it('runs each hook in a sandbox of its own when a sandbox cannot be nested in the warm one', async () => {
    // A bwrap that works outside, and fails inside as it does where user namespaces cannot be nested.
    const fake = path.join(env.root, 'bwrap');
    await fs.writeFile(fake, `#!/bin/sh\nif [ -n "$ELECTRON_RUN_AS_NODE" ]; then exec ${bwrapSandbox().program} "$@"; fi\necho "bwrap: No permissions to create new namespace" >&2\nexit 1\n`, { mode: 0o755 });
    const problems: string[] = [];
    warmSandboxes = new WarmSandboxes({ onProblem: (message) => problems.push(message) });
    const result = await warmSandboxes.run({ program: fake, root: env.root, network: false, source: 'user' }, { command: 'true', env: {}, stdin: '', timeoutMs: 5000 });
    assert.equal(result, undefined);
    assert.deepEqual(problems, [`The warm hook sandbox for ${env.root} could not start (bwrap: No permissions to create new namespace); each hook starts a sandbox of its own for the next 10 minutes.`]);
    assert.ok(await waitFor(async () => (await processesWith(fake)).length === 0), `still running: ${await processesWith(fake)}`);
  });
});
