import assert from 'node:assert/strict';
import * as path from 'node:path';
import { loadHookSet, type HookSet } from '../../src/core/hookSet';
import { matchingHooks, stopHooks } from '../../src/core/matchingHooks';
import { compileRules, type CallMatcher } from '../../src/core/rules';
import { createHookRunner } from '../../src/core/runner';
import { fixture, noSandbox, userHooks, writeJson } from './helpers';

describe('matchingHooks', () => {
  let env: Awaited<ReturnType<typeof fixture>>;
  let set: HookSet;
  beforeEach(async () => {
    env = await fixture();
    await writeJson(userHooks(env.home), {
      hooks: {
        preToolUse: [{ tools: ['bash(git push*)'], command: 'guard push' }, { command: 'guard all' }],
        postToolUse: [{ tools: ['edit_file(src/**)'], command: 'lint src' }],
        stop: [{ command: 'npm test' }],
      },
    });
    set = await loadHookSet({ home: env.home, root: env.root });
  });
  afterEach(() => env.cleanup());

  const commands = (hooks: readonly { command: string }[]) => hooks.map((hook) => hook.command);
  const ownMatcher = (rules: readonly string[]): CallMatcher => {
    const compiled = compileRules([...rules]);
    if (!compiled.ok) throw new Error(compiled.errors.join('; '));
    return compiled.matcher;
  };

  it('finds the guards whose rules match a compound command, in config order', () => {
    const matched = matchingHooks(set, 'preToolUse', { tool: 'Bash', input: { command: 'ls && git push' } });
    assert.equal(matched.tool, 'bash');
    assert.deepEqual(matched.target, { kind: 'command', command: 'ls && git push' });
    assert.deepEqual(commands(matched.hooks), ['guard push', 'guard all']);
  });

  it('matches path rules against the path relative to the root', () => {
    const inSrc = matchingHooks(set, 'postToolUse', { tool: 'edit_file', input: { path: 'src/a.ts' } });
    assert.deepEqual(inSrc.target, { kind: 'path', path: path.join(env.root, 'src/a.ts'), relative: 'src/a.ts' });
    assert.deepEqual(commands(inSrc.hooks), ['lint src']);
    assert.deepEqual(commands(matchingHooks(set, 'postToolUse', { tool: 'edit_file', input: { path: 'docs/a.md' } }).hooks), []);
  });

  it('finds the same hooks as asking each hook\'s own rules, among many, each once and in config order', async () => {
    const rules = ['bash(git push*)', 'Bash', 'bash(*--force*)', 'edit_file(src/**)', 'write_file(*.ts)', 'mcp__github__*', '*(src/**)', 'fetch(domain:example.com)', 'write_file(*.md)'];
    const preToolUse = Array.from({ length: 60 }, (_, i) => ({
      command: `hook ${i}`,
      ...(i % 7 !== 0 && { tools: [rules[i % rules.length]!, rules[(i * 5) % rules.length]!] }),
    }));
    await writeJson(userHooks(env.home), { hooks: { preToolUse } });
    const many = await loadHookSet({ home: env.home, root: env.root });
    const calls = [
      { tool: 'bash', input: { command: 'git status && git push --force' } }, { tool: 'Bash', input: { command: 'ls' } },
      { tool: 'bash', input: { command: 'echo "unclosed' } }, { tool: 'edit_file', input: { path: 'src/a.ts' } },
      { tool: 'Write', input: { file_path: 'docs/a.md' } }, { tool: 'mcp__github__create_issue', input: {} },
      { tool: 'fetch', input: { url: 'https://api.example.com/x' } }, { tool: 'read_file', input: { path: 'README.md' } },
    ];
    for (const call of calls) {
      const { tool, target, hooks } = matchingHooks(many, 'preToolUse', call);
      const oneByOne = many.active.filter((hook) => ownMatcher(hook.tools).matches({ tool, target }));
      assert.deepEqual(commands(hooks), commands(oneByOne), JSON.stringify(call));
    }
  });

  it('runs the pattern guards of a call whose target cannot be read', () => {
    assert.deepEqual(commands(matchingHooks(set, 'preToolUse', { tool: 'bash', input: { cmd: 'git push' } }).hooks), ['guard push', 'guard all']);
    assert.deepEqual(commands(matchingHooks(set, 'postToolUse', { tool: 'edit_file', input: { file: '.env' } }).hooks), ['lint src']);
    assert.deepEqual(commands(matchingHooks(set, 'postToolUse', { tool: 'mcp__x__y', input: { path: 'src/a.ts' } }).hooks), []);
  });

  it('gives every stop hook', () => {
    assert.deepEqual(commands(stopHooks(set)), ['npm test']);
  });

  it('is what the runner reports as the call target', async () => {
    const outcome = await createHookRunner({ sandbox: noSandbox }).postToolUse(set, { tool: 'edit_file', input: { path: 'docs/a.md' } }, {});
    assert.deepEqual(outcome.target, { kind: 'path', path: path.join(env.root, 'docs/a.md'), relative: 'docs/a.md' });
  });
});
