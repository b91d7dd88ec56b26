import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { existsSync, promises as fs } from 'node:fs';
import * as path from 'node:path';
import { detectSandbox, sandboxLine } from '../../src/core/sandbox';
import { fixture, isAlive, projectHooks, userHooks, waitFor, writeJson } from './helpers';

const CLI = path.resolve('dist/cli.js');

interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

describe('cli', () => {
  let env: Awaited<ReturnType<typeof fixture>>;
  beforeEach(async () => {
    env = await fixture();
  });
  afterEach(() => env.cleanup());

  const cliWith = (vars: NodeJS.ProcessEnv, ...args: string[]) =>
    new Promise<CliResult>((resolve) => {
      execFile(process.execPath, [CLI, ...args], { env: { ...process.env, GARUDA_HOME: env.home, ...vars }, cwd: env.root }, (error, stdout, stderr) => {
        resolve({ code: error ? Number(error.code) : 0, stdout, stderr });
      });
    });
  const cli = (...args: string[]) => cliWith({}, ...args);
  const checkJson = async (...args: string[]) => {
    const result = await cli('check', '--root', env.root, '--json', ...args);
    return { code: result.code, json: JSON.parse(result.stdout), stderr: result.stderr };
  };

  it('denies with exit 2 and prints one JSON object', async () => {
    await writeJson(userHooks(env.home), { hooks: { preToolUse: [{ tools: ['bash(git push*)'], command: "echo 'Pushes need a review.' >&2; exit 2" }] } });
    const { code, json } = await checkJson('--event', 'preToolUse', '--tool', 'bash', '--input', '{"command":"git add . && git push"}');
    assert.equal(code, 2);
    assert.deepEqual(Object.keys(json), ['event', 'decision', 'reason', 'feedback', 'warnings', 'runs']);
    assert.equal(json.decision, 'deny');
    assert.equal(json.reason, 'Pushes need a review.');
    assert.deepEqual(Object.keys(json.runs[0]), ['source', 'command', 'decision', 'exitCode', 'signal', 'timedOut', 'durationMs']);
    assert.deepEqual([json.runs[0].source, json.runs[0].decision, json.runs[0].exitCode], ['user', 'deny', 2]);
  });

  it('allows with exit 0 when no hook matches', async () => {
    await writeJson(userHooks(env.home), { hooks: { preToolUse: [{ tools: ['bash(git push*)'], command: 'exit 2' }] } });
    const { code, json } = await checkJson('--event', 'preToolUse', '--tool', 'bash', '--input', '{"command":"git status"}');
    assert.equal(code, 0);
    assert.deepEqual([json.decision, json.runs], ['allow', []]);
  });

  it('returns post-hook feedback and stop continuations', async () => {
    await writeJson(userHooks(env.home), {
      hooks: { postToolUse: [{ command: 'echo lint failed >&2; exit 2' }], stop: [{ command: 'echo keep going >&2; exit 2' }] },
      maxStopContinuations: 1,
    });
    const post = await checkJson('--event', 'postToolUse', '--tool', 'edit_file', '--input', '{"path":"a.ts"}', '--result', '"ok"');
    assert.deepEqual([post.code, post.json.decision, post.json.feedback], [0, 'feedback', '<hook_feedback>\nlint failed\n</hook_feedback>']);
    const stop = await checkJson('--event', 'stop');
    assert.deepEqual([stop.code, stop.json.decision, stop.json.reason, stop.json.continuations], [2, 'continue', 'keep going', 1]);
    const capped = await checkJson('--event', 'stop', '--continuations', '1');
    assert.deepEqual([capped.code, capped.json.decision], [0, 'allow']);
  });

  it('skips project hooks without consent, with a warning that says why, until trust --remember', async () => {
    await writeJson(projectHooks(env.root), { hooks: { preToolUse: [{ command: 'echo no >&2; exit 2' }] } });
    const before = await checkJson('--event', 'preToolUse', '--tool', 'bash', '--input', '{"command":"ls"}');
    assert.equal(before.code, 0);
    assert.match(before.json.warnings[0], /are not run: you have not allowed them yet/);

    const shown = await cli('trust', '--root', env.root);
    assert.equal(shown.code, 0);
    assert.match(shown.stdout, /^Run this project's hooks\?\n\n.*asks to run these commands/);
    assert.match(shown.stdout, /preToolUse · tools: every tool · network: off · on failure: block · timeout: 60 s\n {4}echo no >&2; exit 2\n/);
    assert.ok(shown.stdout.includes(`\n\n${sandboxLine(detectSandbox())}\nTeam policy: `), shown.stdout);

    assert.equal((await cli('trust', '--root', env.root, '--remember')).code, 0);
    const after = await checkJson('--event', 'preToolUse', '--tool', 'bash', '--input', '{"command":"ls"}');
    assert.deepEqual([after.code, after.json.decision, after.json.runs[0].source], [2, 'deny', 'project']);

    await writeJson(projectHooks(env.root), { hooks: { preToolUse: [{ command: 'echo changed >&2; exit 2' }] } });
    const changed = await cli('trust', '--root', env.root);
    assert.match(changed.stdout, /changed since you allowed them/);
    assert.match(changed.stdout, /What changed:\n~ changed: preToolUse · tools: every tool · network: off · on failure: block · timeout: 60 s\n {4}was: echo no >&2; exit 2\n {4}now: echo changed >&2; exit 2\n/);
    const skipped = await checkJson('--event', 'preToolUse', '--tool', 'bash', '--input', '{"command":"ls"}');
    assert.equal(skipped.code, 0);

    assert.match((await cli('trust', '--root', env.root, '--revoke')).stdout, /^Consent for .+ revoked\.\n$/);
  });

  it('exits 1 for a broken config and still runs the other file', async () => {
    await writeJson(userHooks(env.home), '{"hooks": {"preToolUse": [{"command": "exit 0", "timeout": 5}]}}');
    const { code, json } = await checkJson('--event', 'stop');
    assert.equal(code, 1);
    assert.deepEqual(json.warnings, [`${userHooks(env.home)}: hooks.preToolUse[0].timeout: unknown key "timeout" (did you mean "timeoutMs"?)`]);
  });

  it('lists hooks with source, rules, consent and problems', async () => {
    await writeJson(userHooks(env.home), { hooks: { preToolUse: [{ command: 'a', tools: ['bash(rm *)'] }, { command: 'b', tools: ['bash(x'] }] } });
    await writeJson(projectHooks(env.root), { hooks: { stop: [{ command: 'npm test', network: true }] } });
    const result = await cli('list', '--root', env.root, '--json');
    assert.equal(result.code, 1);
    const json = JSON.parse(result.stdout);
    assert.equal(json.project.consent, 'unreviewed');
    assert.deepEqual(json.hooks.map((h: { source: string; command: string; active: boolean }) => [h.source, h.command, h.active]), [
      ['user', 'a', true],
      ['project', 'npm test', false],
    ]);
    assert.equal(json.problems.length, 1);
    assert.match(json.problems[0].text, /hooks\.preToolUse\[1\]\.tools\[0\]: rule "bash\(x"/);
    const text = await cli('list', '--root', env.root);
    assert.match(text.stdout, /\[project, not active\] stop · network: ON · timeout: 60 s\n {4}npm test/);
  });

  it('shows the audit log newest last', async () => {
    await writeJson(userHooks(env.home), { hooks: { preToolUse: [{ command: 'exit 0' }] } });
    await cli('check', '--root', env.root, '--event', 'preToolUse', '--tool', 'bash', '--input', '{"command":"one"}');
    await cli('check', '--root', env.root, '--event', 'preToolUse', '--tool', 'read_file', '--input', '{"path":"x"}');
    const lines = (await cli('audit', '--tail', '5', '--json')).stdout.trim().split('\n').map((l) => JSON.parse(l));
    assert.deepEqual(lines.map((e) => [e.event, e.tool, e.decision, e.exitCode]), [['preToolUse', 'bash', 'allow', 0], ['preToolUse', 'read_file', 'allow', 0]]);
    assert.match((await cli('audit')).stdout, /allow {7}preToolUse read_file {2}user {2}exit 0 {2}\d+ ms {2}exit 0\n$/);
  });

  for (const [signal, code] of [['SIGINT', 130], ['SIGTERM', 143], ['SIGHUP', 129]] as const) {
    it(`exits ${code} on ${signal} and kills the hooks it started`, async () => {
      // Without a sandbox (no bwrap on PATH): a sandboxed hook dies with bwrap's parent anyway.
      const sleep = ['/usr/bin/sleep', '/bin/sleep'].find((file) => existsSync(file))!;
      const pidFile = path.join(env.home, 'sleep.pid');
      await writeJson(userHooks(env.home), { hooks: { preToolUse: [{ command: `${sleep} 30 & echo $! > "${pidFile}"; wait` }] } });
      const child = spawn(process.execPath, [CLI, 'check', '--event', 'preToolUse', '--tool', 'bash'], {
        env: { PATH: path.join(env.home, 'empty'), GARUDA_HOME: env.home },
        cwd: env.root,
        stdio: 'ignore',
      });
      const exited = new Promise<[number | null, string | null]>((resolve) => child.once('exit', (...status) => resolve(status)));
      let pid = 0;
      try {
        assert.ok(await waitFor(async () => (pid = Number(await fs.readFile(pidFile, 'utf8').catch(() => ''))) > 0), 'the hook never started');
        child.kill(signal);
        assert.deepEqual(await exited, [code, null]);
        assert.ok(await waitFor(() => !isAlive(pid)), `sleep ${pid} is still running`);
      } finally {
        child.kill('SIGKILL');
        if (pid > 0 && isAlive(pid)) process.kill(pid, 'SIGKILL');
      }
    });
  }

  describe('under a team policy', () => {
    const withPolicy = async (policy: unknown) => {
      const file = path.join(env.home, 'policy.json');
      await writeJson(file, policy);
      return { file, run: (...args: string[]) => cliWith({ GARUDA_POLICY: file }, ...args) };
    };

    it('lists the sandbox, the policy in force and the hooks it refuses', async () => {
      const { file, run } = await withPolicy({ disallowedCommands: ['bash(curl *)'], allowProjectHooks: false });
      await writeJson(userHooks(env.home), { hooks: { preToolUse: [{ command: 'curl -s https://example.com/x && x' }, { command: 'npm test' }] } });
      await writeJson(projectHooks(env.root), { hooks: { stop: [{ command: 'make' }] } });
      const result = await run('list', '--root', env.root, '--json');
      assert.equal(result.code, 0);
      const json = JSON.parse(result.stdout);
      assert.deepEqual(json.sandbox, detectSandbox());
      const text = `Team policy (${file}): commands not allowed: bash(curl *); project hooks never run.`;
      assert.deepEqual(json.policy, { file, exists: true, requireSandbox: false, disallowedCommands: ['bash(curl *)'], allowProjectHooks: false, allowNetwork: true, text });
      const refusal = `refused by the team policy (${file}: disallowedCommands "bash(curl *)")`;
      assert.deepEqual(json.hooks.map((h: { command: string; active: boolean; refused: string | null }) => [h.command, h.active, h.refused]), [
        ['curl -s https://example.com/x && x', true, refusal],
        ['npm test', true, null],
        ['make', false, null],
      ]);
      assert.equal(json.project.consent, 'policy');

      const listed = (await run('list', '--root', env.root)).stdout;
      assert.ok(listed.includes(`\n${sandboxLine(detectSandbox())}\n${text}\n`), listed);
      assert.ok(listed.includes(`\n    curl -s https://example.com/x && x\n    ${refusal}\n`), listed);
    });

    it('has nothing to allow in trust when project hooks never run, and will not remember them', async () => {
      const { file, run } = await withPolicy({ allowProjectHooks: false });
      await writeJson(projectHooks(env.root), { hooks: { stop: [{ command: 'make' }] } });
      const expected = `Team policy (${file}): project hooks never run.\nThe hooks in ${projectHooks(env.root)} never run under this policy: there is nothing to allow.\n`;
      assert.deepEqual(await run('trust', '--root', env.root), { code: 0, stdout: expected, stderr: '' });
      assert.deepEqual(await run('trust', '--root', env.root, '--remember'), { code: 1, stdout: expected, stderr: '' });
    });

    it('shows the policy under the consent question', async () => {
      const { file, run } = await withPolicy({ requireSandbox: true });
      await writeJson(projectHooks(env.root), { hooks: { stop: [{ command: 'make' }] } });
      const shown = (await run('trust', '--root', env.root)).stdout;
      assert.ok(shown.includes(`\n${sandboxLine(detectSandbox())}\nTeam policy (${file}): hooks run only in an OS sandbox.\n`), shown);
    });

    it('blocks a guarded call and exits 1 for list when the policy file is corrupt', async () => {
      const { file, run } = await withPolicy('{ not json');
      await writeJson(userHooks(env.home), { hooks: { preToolUse: [{ command: 'exit 0' }] } });
      const check = await run('check', '--root', env.root, '--json', '--event', 'preToolUse', '--tool', 'bash', '--input', '{"command":"ls"}');
      assert.equal(check.code, 2);
      const problem = `${file}: not valid JSON: invalid symbol at line 1, column 3`;
      assert.equal(JSON.parse(check.stdout).reason, `A guard failed (refused by the team policy, which cannot be used (${problem})), and guards block the call when they fail`);
      const list = await run('list', '--root', env.root);
      assert.equal(list.code, 1);
      assert.ok(list.stdout.includes(`\nTeam policy: ${problem}. Every hook is refused until the file is fixed.\n`), list.stdout);
    });
  });

  for (const [args, message] of [
    [['nope'], 'garuda-hooks: unknown command "nope"'],
    [['check', '--event', 'later'], 'garuda-hooks: --event must be one of preToolUse, postToolUse, stop'],
    [['check', '--event', 'preToolUse'], 'garuda-hooks: --tool is required for preToolUse'],
    [['check', '--event', 'preToolUse', '--tool', 'bash', '--input', '{bad'], /^garuda-hooks: --input is not valid JSON: /],
    [['check', '--bogus'], /^garuda-hooks: Unknown option '--bogus'/],
    [['audit', '--tail', '0'], 'garuda-hooks: --tail must be a whole number ≥ 1'],
  ] as const) {
    it(`exits 1 with one clear line for: ${args.join(' ')}`, async () => {
      const result = await cli(...args);
      assert.equal(result.code, 1);
      const [first, second] = result.stderr.split('\n');
      if (typeof message === 'string') assert.equal(first, message);
      else assert.match(first!, message);
      assert.equal(second, "Run 'garuda-hooks --help' for usage.");
      assert.doesNotMatch(result.stderr, /\n\s+at /);
    });
  }
});
