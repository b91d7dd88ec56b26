import assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { hooksHash, rememberConsent } from '../../src/core/consent';
import { formatProblem } from '../../src/core/hookConfig';
import { loadHookSet, uniqueActiveHooks, uniqueProblems } from '../../src/core/hookSet';
import { fixture, projectHooks, userHooks, writeJson } from './helpers';

describe('hookSet', () => {
  let env: Awaited<ReturnType<typeof fixture>>;
  beforeEach(async () => {
    env = await fixture();
  });
  afterEach(() => env.cleanup());

  it('lists the user file once across folders, and each folder its own project hooks', async () => {
    const second = path.join(env.root, '..', 'second');
    await fs.mkdir(second);
    await writeJson(userHooks(env.home), { hooks: { stop: [{ command: 'user' }, { command: 1 }] } });
    const project = { hooks: { stop: [{ command: 'project' }] } };
    await writeJson(projectHooks(second), project);
    await rememberConsent(env.home, second, hooksHash(project));
    const sets = await Promise.all([env.root, second].map((root) => loadHookSet({ home: env.home, root })));
    assert.deepEqual(uniqueActiveHooks(sets).map(({ hook, root }) => [hook.source, hook.command, root]), [
      ['user', 'user', env.root],
      ['project', 'project', second],
    ]);
    assert.deepEqual(uniqueProblems(sets).map(formatProblem), [`${userHooks(env.home)}: hooks.stop[1].command: expected string, got 1`]);
  });
});
