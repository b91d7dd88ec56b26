import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { promisify } from 'node:util';
import {
  canonicalJson,
  consentDetail,
  consentStateOf,
  hooksHash,
  readTrustStore,
  rememberConsent,
  revokeConsent,
} from '../../src/core/consent';
import { parseHooksFile } from '../../src/core/hookConfig';
import { fixture, noPolicy, noSandbox, worker } from './helpers';

const run = promisify(execFile);


describe('consent', () => {
  let env: Awaited<ReturnType<typeof fixture>>;
  beforeEach(async () => {
    env = await fixture();
  });
  afterEach(() => env.cleanup());

  it('hashes the canonical JSON, so key order and whitespace do not count', () => {
    const a = JSON.parse('{"hooks":{"stop":[{"command":"x","timeoutMs":5}]}}');
    const b = JSON.parse('{ "hooks" : { "stop" : [ { "timeoutMs" : 5, "command" : "x" } ] } }');
    assert.equal(hooksHash(a), hooksHash(b));
    assert.match(hooksHash(a), /^[0-9a-f]{64}$/);
    assert.equal(canonicalJson({ b: 1, a: [1, { d: null, c: 'x' }] }), '{"a":[1,{"c":"x","d":null}],"b":1}');
  });

  it('changes the hash when a command changes', () => {
    assert.notEqual(hooksHash({ hooks: { stop: [{ command: 'x' }] } }), hooksHash({ hooks: { stop: [{ command: 'x ' }] } }));
  });

  it('ignores the $schema key when hashing', () => {
    assert.equal(hooksHash({ $schema: 'a', hooks: {} }), hooksHash({ hooks: {} }));
  });

  it('remembers, pins and revokes consent in a private trust.json', async () => {
    const hash = hooksHash({ hooks: { stop: [{ command: 'x' }] } });
    assert.equal(consentStateOf((await readTrustStore(env.home)).store, env.root, hash), 'unreviewed');
    await rememberConsent(env.home, env.root, hash);
    const file = path.join(env.home, 'trust.json');
    assert.equal((await fs.stat(file)).mode & 0o777, 0o600);
    assert.deepEqual(JSON.parse(await fs.readFile(file, 'utf8')), { hooks: { [env.root]: hash }, reviewed: {} });
    const { store } = await readTrustStore(env.home);
    assert.equal(consentStateOf(store, env.root, hash), 'allowed');
    assert.equal(consentStateOf(store, env.root, hooksHash({})), 'changed');
    assert.equal(await revokeConsent(env.home, env.root), true);
    assert.equal(await revokeConsent(env.home, env.root), false);
    assert.equal(consentStateOf((await readTrustStore(env.home)).store, env.root, hash), 'unreviewed');
  });

  it('treats a corrupt trust.json as no consent and says so', async () => {
    await fs.writeFile(path.join(env.home, 'trust.json'), '{"hooks": ');
    const { store, problem } = await readTrustStore(env.home);
    assert.deepEqual(store.hooks, {});
    assert.equal(problem, `${path.join(env.home, 'trust.json')}: not a valid consent store; every project asks again`);
  });

  it('loses no consent when several processes remember at once', async () => {
    const roots = Array.from({ length: 8 }, (_, i) => `/root-${i}`);
    await Promise.all(roots.map((root) => run(process.execPath, [worker('remember-consent'), env.home, root])));
    const stored = JSON.parse(await fs.readFile(path.join(env.home, 'trust.json'), 'utf8')).hooks;
    assert.deepEqual(Object.keys(stored).sort(), roots);
  });

  it('shows every event, rule, network flag, failure mode and command, visibly escaped', () => {
    const project = parseHooksFile(
      JSON.stringify({
        hooks: {
          preToolUse: [{ command: "echo 'review' >&2; exit 2\rrm -rf ~", tools: ['bash(git push*)'] }],
          postToolUse: [{ command: 'npx eslint "$GARUDA_FILE"', tools: ['edit_file', 'write_file'], network: true, timeoutMs: 30000 }],
          stop: [{ command: 'npm test' }],
        },
      }),
      '/repo/.garuda/hooks.json',
      'project',
    );
    assert.equal(
      consentDetail(project, 'unreviewed', noSandbox, noPolicy),
      [
        '/repo/.garuda/hooks.json asks to run these commands on your machine when an agent uses a tool:',
        '',
        'preToolUse · tools: bash(git push*) · network: off · on failure: block · timeout: 60 s',
        "    echo 'review' >&2; exit 2\\rrm -rf ~",
        'postToolUse · tools: edit_file, write_file · network: ON · timeout: 30 s',
        '    npx eslint "$GARUDA_FILE"',
        'stop · network: off · timeout: 60 s',
        '    npm test',
        '',
        'Only these commands are pinned: a script they run (such as scripts/guard.sh) can change without asking again.',
        '',
        'No OS sandbox: hooks run with your full user permissions, because this test runs them without one.',
        'Team policy: none (/etc/garuda/policy.json does not exist).',
      ].join('\n'),
    );
    assert.match(consentDetail(project, 'changed', noSandbox, noPolicy), /^The hooks in \/repo\/\.garuda\/hooks\.json changed since you allowed them\./);
  });

  it('shows a folder name with a right-to-left override escaped, not obeyed', () => {
    const project = parseHooksFile('{"hooks":{"stop":[{"command":"x"}]}}', '/r/evil\u202Egnp.js/.garuda/hooks.json', 'project');
    assert.match(consentDetail(project, 'unreviewed', noSandbox, noPolicy), /^\/r\/evil\\u\{202E\}gnp\.js\/\.garuda\/hooks\.json asks to run/);
  });

  it('lists the invalid hooks that will not run', () => {
    const project = parseHooksFile('{"hooks":{"stop":[{"command":"ok"},{"command":1}]}}', '/r/.garuda/hooks.json', 'project');
    assert.match(consentDetail(project, 'unreviewed', noSandbox, noPolicy), /Not run, because they are invalid:\n  \/r\/\.garuda\/hooks\.json: hooks\.stop\[1\]\.command: expected string, got 1\n/);
  });
});

