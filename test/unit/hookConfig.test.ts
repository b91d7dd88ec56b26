import assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { formatProblem, loadHooksFile, parseHooksFile } from '../../src/core/hookConfig';
import { tempDir } from './helpers';

const FILE = '/repo/.garuda/hooks.json';
const parse = (value: unknown) => parseHooksFile(typeof value === 'string' ? value : JSON.stringify(value), FILE, 'project');
const messages = (value: unknown) => parse(value).problems.map(formatProblem);

describe('hookConfig', () => {
  it('applies the defaults to a minimal hook', () => {
    const file = parse({ hooks: { preToolUse: [{ command: 'exit 0' }] } });
    assert.deepEqual(file.problems, []);
    const [hook] = file.hooks;
    assert.equal(hook!.event, 'preToolUse');
    assert.equal(hook!.timeoutMs, 60000);
    assert.equal(hook!.network, false);
    assert.equal(hook!.onFailure, 'block');
    assert.deepEqual(hook!.tools, []);
    assert.equal(file.maxStopContinuations, 8);
  });

  it('reads every event and keeps config order', () => {
    const file = parse({
      hooks: {
        preToolUse: [{ command: 'a', tools: ['bash(git push*)'], onFailure: 'allow', timeoutMs: 500, network: true }, { command: 'b' }],
        postToolUse: [{ command: 'c', tools: ['edit_file'] }],
        stop: [{ command: 'd' }],
      },
      maxStopContinuations: 3,
    });
    assert.deepEqual(file.hooks.map((h) => [h.event, h.index, h.command]), [
      ['preToolUse', 0, 'a'],
      ['preToolUse', 1, 'b'],
      ['postToolUse', 0, 'c'],
      ['stop', 0, 'd'],
    ]);
    assert.equal(file.hooks[0]!.onFailure, 'allow');
    assert.equal(file.maxStopContinuations, 3);
  });

  it('names the file, the JSON path and the key of an unknown key', () => {
    assert.deepEqual(messages({ hooks: { preToolUse: [{ command: 'x', timeout: 5 }] } }), [
      '/repo/.garuda/hooks.json: hooks.preToolUse[0].timeout: unknown key "timeout" (did you mean "timeoutMs"?)',
    ]);
  });

  it('suggests the event name for another agent spelling', () => {
    assert.deepEqual(messages({ hooks: { PreToolUse: [] } }), [
      '/repo/.garuda/hooks.json: hooks.PreToolUse: unknown key "PreToolUse" (did you mean "preToolUse"?)',
    ]);
  });

  it('points a Claude Code matcher at the tools key', () => {
    assert.deepEqual(messages({ hooks: { preToolUse: [{ command: 'x', matcher: 'Bash' }] } }), [
      '/repo/.garuda/hooks.json: hooks.preToolUse[0].matcher: unknown key "matcher" (use "tools" with permission rules such as "bash(git push*)")',
    ]);
  });

  it('says what was expected and what arrived for a wrong type or range', () => {
    assert.deepEqual(messages({ hooks: { postToolUse: [{ command: 'x', timeoutMs: '30s' }, { command: 'y', timeoutMs: 0 }, { command: 'z', network: 'yes' }] } }), [
      '/repo/.garuda/hooks.json: hooks.postToolUse[0].timeoutMs: expected number, got "30s"',
      '/repo/.garuda/hooks.json: hooks.postToolUse[1].timeoutMs: must be at least 1, got 0',
      '/repo/.garuda/hooks.json: hooks.postToolUse[2].network: expected boolean, got "yes"',
    ]);
    assert.deepEqual(messages({ hooks: { preToolUse: [{ command: 'x', onFailure: 'warn' }] } }), [
      '/repo/.garuda/hooks.json: hooks.preToolUse[0].onFailure: expected "block" or "allow", got "warn"',
    ]);
    assert.deepEqual(messages({ maxStopContinuations: 99 }), ['/repo/.garuda/hooks.json: maxStopContinuations: must be at most 50, got 99']);
  });

  it('reports a missing or empty command', () => {
    assert.deepEqual(messages({ hooks: { stop: [{}, { command: '  ' }] } }), [
      '/repo/.garuda/hooks.json: hooks.stop[0].command: required string is missing',
      '/repo/.garuda/hooks.json: hooks.stop[1].command: must not be empty',
    ]);
  });

  it('rejects keys that do not belong to the event', () => {
    assert.deepEqual(messages({ hooks: { stop: [{ command: 'x', tools: ['bash'] }], postToolUse: [{ command: 'y', onFailure: 'allow' }] } }), [
      '/repo/.garuda/hooks.json: hooks.postToolUse[0].onFailure: unknown key "onFailure" (only preToolUse hooks take "onFailure")',
      '/repo/.garuda/hooks.json: hooks.stop[0].tools: unknown key "tools" (only preToolUse and postToolUse hooks take "tools")',
    ]);
  });

  it('keeps the valid hooks of a file with one broken entry', () => {
    const file = parse({ hooks: { preToolUse: [{ command: 'good' }, { command: 5 }, { command: 'also good' }] } });
    assert.deepEqual(file.hooks.map((h) => h.command), ['good', 'also good']);
    assert.equal(file.problems.length, 1);
  });

  it('skips a hook with an invalid rule and keeps the others', () => {
    const file = parse({ hooks: { preToolUse: [{ command: 'a', tools: ['bash(git push*'] }, { command: 'b', tools: ['bash(ls*)'] }] } });
    assert.deepEqual(file.hooks.map((h) => h.command), ['b']);
    assert.equal(file.problems.length, 1);
    assert.deepEqual(file.problems[0]!.path, ['hooks', 'preToolUse', 0, 'tools', 0]);
    assert.match(formatProblem(file.problems[0]!), /^\/repo\/\.garuda\/hooks\.json: hooks\.preToolUse\[0\]\.tools\[0\]: rule "bash\(git push\*": .*; this hook is skipped$/);
  });

  it('gives the line and column of malformed JSON', () => {
    const file = parse('{\n  "hooks": {\n    "stop": [}\n}');
    assert.equal(file.hooks.length, 0);
    assert.equal(file.problems.length, 1);
    assert.equal(formatProblem(file.problems[0]!), '/repo/.garuda/hooks.json: not valid JSON: value expected at line 3, column 14');
  });

  it('accepts comments and trailing commas, as VS Code settings do', () => {
    const file = parse('{\n  // guards\n  "hooks": {"stop": [{"command": "true",},],},\n}');
    assert.deepEqual(file.problems, []);
    assert.equal(file.hooks.length, 1);
  });

  it('reports an empty file', () => {
    assert.deepEqual(messages(''), ['/repo/.garuda/hooks.json: not valid JSON: value expected at line 1, column 1']);
  });

  it('treats a missing file as no hooks and no problem', async () => {
    const dir = await tempDir();
    const file = await loadHooksFile(path.join(dir, 'nope', 'hooks.json'), 'user');
    assert.equal(file.exists, false);
    assert.deepEqual(file.problems, []);
    await fs.rm(dir, { recursive: true });
  });

  it('reports a hooks file that cannot be read', async () => {
    const dir = await tempDir();
    const file = await loadHooksFile(dir, 'user');
    assert.equal(file.exists, true);
    assert.match(formatProblem(file.problems[0]!), /: cannot be read: EISDIR/);
    await fs.rm(dir, { recursive: true });
  });

  it('accepts a byte order mark and a $schema key', () => {
    const file = parse('\uFEFF{"$schema": "x", "hooks": {"stop": [{"command": "true"}]}}');
    assert.deepEqual(file.problems, []);
    assert.equal(file.hooks.length, 1);
  });

  it('reports a hooks value of the wrong type', () => {
    assert.deepEqual(messages({ hooks: [] }), ['/repo/.garuda/hooks.json: hooks: expected object, got an array']);
    assert.deepEqual(messages([]), ['/repo/.garuda/hooks.json: expected object, got an array']);
  });
});
