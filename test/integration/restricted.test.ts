import assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { GarudaHooksApi } from '../../src/api';
import type { ConsentController } from '../../src/consent';
import type { TestingHooks } from '../../src/extension';
import { activeApi, EXTENSION_ID, folder, projectHooksFile, removeFile, userHooksFile, writeFile } from './helpers';

// Runs only in the window opened with Workspace Trust on and the workspace not trusted.
describe('Restricted Mode', () => {
  let api: GarudaHooksApi;
  let asked = 0;

  before(async () => {
    api = await activeApi();
    const exports = vscode.extensions.getExtension<{ testing: { consent: ConsentController } }>(EXTENSION_ID)!.exports;
    exports.testing.consent.prompt = async () => {
      asked++;
      return 'Always allow';
    };
  });
  after(async () => {
    await removeFile(projectHooksFile('alpha'));
    await removeFile(userHooksFile());
  });

  it('opens the workspace untrusted', () => {
    assert.equal(vscode.workspace.isTrusted, false);
  });

  it('never runs project hooks and never asks, but still runs the user hooks', async () => {
    await writeFile(projectHooksFile('alpha'), { hooks: { preToolUse: [{ command: 'echo project >&2; exit 2' }] } });
    await writeFile(userHooksFile(), { hooks: { postToolUse: [{ command: 'echo user check >&2; exit 2' }] } });
    await vscode.commands.executeCommand('garudaHooks.reloadHooks');
    const pre = await api.preToolUse({ tool: 'bash', input: { command: 'ls' }, folder: folder('alpha').uri });
    assert.equal(pre.decision, 'allow');
    assert.match(pre.warnings.join('\n'), /alpha\/\.garuda\/hooks\.json are not run: this workspace is in Restricted Mode; trust it to review its hooks\./);
    const post = await api.postToolUse({ tool: 'bash', input: { command: 'ls' }, folder: folder('alpha').uri }, 'out');
    assert.equal(post.feedback, '<hook_feedback>\nuser check\n</hook_feedback>');
    await new Promise((resolve) => setTimeout(resolve, 500));
    assert.equal(asked, 0);
    assert.deepEqual(api.activeHooks().map((h) => h.source), ['user']);
  });

  it('does not open the review modal either', async () => {
    await vscode.commands.executeCommand('garudaHooks.reviewProjectHooks', folder('alpha').uri);
    assert.equal(asked, 0);
  });

  it('says in the Hooks view why the project hooks do not run', async () => {
    const { hooksTree } = vscode.extensions.getExtension<{ testing: TestingHooks }>(EXTENSION_ID)!.exports.testing;
    const row = (await hooksTree.getChildren()).find((item) => item.label === 'alpha')!;
    assert.equal(row.contextValue, 'root.project.restricted');
    assert.match(String(row.description), /Restricted Mode/);
    const tooltip = row.tooltip instanceof vscode.MarkdownString ? row.tooltip.value : String(row.tooltip);
    assert.match(tooltip.replace(/&nbsp;/g, ' '), /this workspace is in Restricted Mode; trust it to review its hooks\./);
  });
});
