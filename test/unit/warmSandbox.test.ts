import assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { loadHookSet, type HookSet } from '../../src/core/hookSet';
import { createHookRunner, type HookRunner } from '../../src/core/runner';
import { WarmSandboxes, type WarmSandboxOptions } from '../../src/core/warmSandbox';
import { bwrapSandbox, fixture, processesWith, projectHooks, userHooks, waitFor, writeJson } from './helpers';

// What a warm sandbox adds to a sandbox per run; the isolation both give is tested in sandbox.test.ts.
describe('warm bwrap sandboxes', () => {
  let env: Awaited<ReturnType<typeof fixture>>;
  let warmSandboxes: WarmSandboxes;
  let runner: HookRunner;
  const bash = { tool: 'bash', input: { command: 'ls' } };
  /** Names the hook's PID namespace: one per sandbox. */
  const NAMESPACE = 'readlink /proc/self/ns/pid';

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

  it('runs the hooks of one root, source and network setting in one sandbox, and the others in sandboxes of their own', async () => {
    const set = await withHooks(
      { postToolUse: [{ command: NAMESPACE }, { command: NAMESPACE, network: true }] },
      { postToolUse: [{ command: NAMESPACE }] },
    );
    const first = await stdoutOf(set);
    const second = await stdoutOf(set);
    assert.deepEqual(second, first);
    assert.equal(new Set(first).size, 3, `namespaces: ${first}`);
    assert.equal(warmSandboxes.size, 3);
  });

  it('ends what a hook left running and empties /tmp before it reports, so the next hook starts clean', async () => {
    const token = `30${Date.now() % 1000}.${process.pid}`;
    const set = await withHooks({
      postToolUse: [{ command: `setsid sleep ${token} >/dev/null 2>&1 </dev/null & echo left > /tmp/left; mkdir -p /tmp/a/b; echo "$TMPDIR"` }],
    });
    const [tempFolder] = await stdoutOf(set);
    assert.deepEqual(await processesWith(token), []);
    const later = await withHooks({
      // The shell expands the pattern itself: bwrap's pid 1, the worker, and this shell.
      postToolUse: [{ command: `echo /proc/[0-9]*; ls -A /tmp; test -e "${tempFolder}" && echo "${tempFolder} is still there"; ${NAMESPACE}` }],
    });
    const [clean] = await stdoutOf(later);
    const lines = clean!.split('\n');
    assert.equal(lines[0]!.split(' ').length, 3, `processes: ${lines[0]}`);
    // Only the folders on the way to the root, when it lives in /tmp, and the run's own temp folder.
    const towardsRoot = path.relative('/tmp', env.root).startsWith('..') ? [] : [path.relative('/tmp', env.root).split('/')[0]];
    const inTmp = lines.slice(1, -1);
    assert.deepEqual(inTmp.filter((name) => !name.startsWith('garuda-hook-')), towardsRoot);
    assert.equal(inTmp.filter((name) => name.startsWith('garuda-hook-')).length, 1, `in /tmp: ${inTmp}`);
    assert.equal(warmSandboxes.size, 1);
  });

  it('keeps the workspace when a hook moves a folder on the way to it, and runs the next hook in a new sandbox', async () => {
    // A root in /tmp, whatever TMPDIR says: it is mounted inside the sandbox's private /tmp.
    const outer = await fs.mkdtemp('/tmp/garuda-test-');
    const root = path.join(outer, 'project');
    await fs.mkdir(root);
    await fs.writeFile(path.join(root, 'kept.txt'), 'kept');
    try {
      const inRoot = async (hooks: unknown) => ({ ...(await withHooks(hooks)), root });
      const [moved] = await stdoutOf(await inRoot({ postToolUse: [{ command: `mv ${outer} /tmp/moved && ${NAMESPACE}` }] }));
      assert.match(moved!, /^pid:/);
      assert.equal(await fs.readFile(path.join(root, 'kept.txt'), 'utf8'), 'kept');
      const [again] = await stdoutOf(await inRoot({ postToolUse: [{ command: `${NAMESPACE}; cat kept.txt` }] }));
      assert.notEqual(again!.split('\n')[0], moved);
      assert.equal(again!.split('\n')[1], 'kept');
    } finally {
      await fs.rm(outer, { recursive: true, force: true });
    }
  });

  it('makes a protected folder that appears after its sandbox started read-only to the next hook', async () => {
    const set = await withHooks({ postToolUse: [{ command: 'mkdir -p .git/hooks && echo made > .git/hooks/pre-commit; exit 2' }] });
    assert.equal((await runner.postToolUse(set, bash, '')).feedback, undefined);
    // `git init` while the editor is open: the sandbox that is up does not know the folder.
    await fs.rm(path.join(env.root, '.git'), { recursive: true });
    await fs.mkdir(path.join(env.root, '.git/hooks'), { recursive: true });
    const outcome = await runner.postToolUse(set, bash, '');
    assert.match(outcome.feedback!, /cannot create \.git\/hooks\/pre-commit: Read-only file system/);
    assert.deepEqual(await fs.readdir(path.join(env.root, '.git/hooks')), []);
  });

  it('fails a hook whose sandbox ends under it as a crashed hook, and runs the next call in a new sandbox', async () => {
    const killer = await withHooks({ preToolUse: [{ command: 'kill -9 $PPID; sleep 5' }] });
    const outcome = await runner.preToolUse(killer, bash);
    assert.equal(outcome.decision, 'deny');
    assert.match(outcome.reason!, /^A guard failed \(killed by SIGKILL\), and guards block the call when they fail: the hook's sandbox ended while it ran: its worker ended/);
    const [namespace] = await stdoutOf(await withHooks({ postToolUse: [{ command: NAMESPACE }] }));
    assert.match(namespace!, /^pid:/);
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

  it('leaves nothing running when disposed', async () => {
    await stdoutOf(await withHooks({ postToolUse: [{ command: 'true' }] }));
    assert.notDeepEqual(await processesWith(env.root), []);
    warmSandboxes.dispose();
    assert.ok(await waitFor(async () => (await processesWith(env.root)).length === 0), `still running: ${await processesWith(env.root)}`);
  });

  it('runs each hook in a sandbox of its own, and says so once, when the worker cannot start', async () => {
    const problems: string[] = [];
    start({ runtime: path.join(os.tmpdir(), 'no-such-node'), onProblem: (message) => problems.push(message) });
    const set = await withHooks({ postToolUse: [{ command: `${NAMESPACE}; echo /proc/[0-9]*` }] });
    const [first] = await stdoutOf(set);
    const [second] = await stdoutOf(set);
    assert.notEqual(first!.split('\n')[0], second!.split('\n')[0]);
    // A sandbox per run: bwrap's pid 1 and the hook's shell.
    assert.equal(first!.split('\n')[1]!.split(' ').length, 2);
    assert.equal(problems.length, 1);
    assert.match(problems[0]!, /^The warm hook sandbox could not start \(bwrap: execvp .*no-such-node: No such file or directory\); each hook now starts a sandbox of its own\.$/);
  });
});
