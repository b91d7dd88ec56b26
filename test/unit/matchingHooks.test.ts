import assert from 'node:assert/strict';
import * as path from 'node:path';
import { loadHookSet, type HookSet } from '../../src/core/hookSet';
import { matchingHooks, stopHooks } from '../../src/core/matchingHooks';
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

  it('gives every stop hook', () => {
    assert.deepEqual(commands(stopHooks(set)), ['npm test']);
  });

  it('is what the runner reports as the call target', async () => {
    const outcome = await createHookRunner({ sandbox: noSandbox }).postToolUse(set, { tool: 'edit_file', input: { path: 'docs/a.md' } }, {});
    assert.deepEqual(outcome.target, { kind: 'path', path: path.join(env.root, 'docs/a.md'), relative: 'docs/a.md' });
  });
});
