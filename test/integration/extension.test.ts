import assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { GarudaHooksApi } from '../../src/api';
import { canonicalRoot, hooksHash, rememberConsent } from '../../src/core/consent';
import { parseHooksFile } from '../../src/core/hookConfig';
import { activeApi, EXTENSION_ID, eventually, folder, home, projectHooksFile, removeAllHooks, removeFile, userHooksFile, writeFile } from './helpers';

const commandsOf = (hooks: readonly { command: string }[]) => hooks.map((h) => h.command);

async function allowProject(name: string, document: unknown): Promise<void> {
  await rememberConsent(home(), await canonicalRoot(folder(name).uri.fsPath), hooksHash(document));
}

describe('the extension in a real VS Code', () => {
  let api: GarudaHooksApi;
  before(async () => {
    api = await activeApi();
  });
  afterEach(async () => {
    await removeAllHooks(api);
  });

  it('activates and exports the typed API', () => {
    const extension = vscode.extensions.getExtension(EXTENSION_ID)!;
    assert.equal(extension.isActive, true);
    assert.equal(api.version, 1);
    assert.equal(typeof api.activationMs, 'number');
    assert.ok(api.activationMs > 0);
    for (const name of ['preToolUse', 'postToolUse', 'stop', 'activeHooks', 'systemPromptNote'] as const) assert.equal(typeof api[name], 'function', name);
    console.log(`    activation took ${api.activationMs.toFixed(1)} ms in VS Code ${vscode.version}`);
  });

  it('registers every command it contributes', async () => {
    const contributed = (vscode.extensions.getExtension(EXTENSION_ID)!.packageJSON.contributes.commands as { command: string }[]).map((c) => c.command);
    const registered = new Set(await vscode.commands.getCommands(true));
    for (const command of [...contributed, 'garudaHooks.preToolUse', 'garudaHooks.postToolUse', 'garudaHooks.stop']) {
      assert.ok(registered.has(command), `${command} is not registered`);
    }
    assert.ok(contributed.length >= 5);
  });

  it('reloads when the user hooks file is created, changed and deleted', async () => {
    await writeFile(userHooksFile(), { hooks: { preToolUse: [{ command: 'echo first' }] } });
    await eventually('the new user hook', () => commandsOf(api.activeHooks()).join() === 'echo first');
    await writeFile(userHooksFile(), { hooks: { preToolUse: [{ command: 'echo second' }], stop: [{ command: 'echo third' }] } });
    await eventually('the changed user hooks', () => commandsOf(api.activeHooks()).join() === 'echo second,echo third');
    await removeFile(userHooksFile());
    await eventually('no user hooks', () => api.activeHooks().length === 0);
  });

  it('reloads when a project hooks file is created, changed and deleted, pinned to consent', async () => {
    const document = { hooks: { postToolUse: [{ command: 'echo project' }] } };
    await allowProject('alpha', document);
    await writeFile(projectHooksFile('alpha'), document);
    const [hook] = await eventually('the allowed project hook', () => (api.activeHooks().length === 1 ? api.activeHooks() : undefined));
    assert.equal(hook!.source, 'project');
    assert.equal(hook!.folder, await canonicalRoot(folder('alpha').uri.fsPath));
    // A changed file is no longer the one the user allowed.
    await writeFile(projectHooksFile('alpha'), { hooks: { postToolUse: [{ command: 'echo changed' }] } });
    await eventually('the changed project hook to stop running', () => api.activeHooks().length === 0);
    await writeFile(projectHooksFile('alpha'), document);
    await eventually('the allowed hook again', () => api.activeHooks().length === 1);
    await removeFile(projectHooksFile('alpha'));
    await eventually('no project hooks', () => api.activeHooks().length === 0);
  });

  it('puts a diagnostic on the offending key of a broken hooks.json', async () => {
    const file = projectHooksFile('beta');
    await writeFile(file, '{\n  "hooks": {\n    "preToolUse": [\n      {\n        "command": "exit 0",\n        "timeout": 5\n      }\n    ]\n  }\n}\n');
    const uri = vscode.Uri.file(file);
    const [diagnostic] = await eventually('a diagnostic in beta/.garuda/hooks.json', () => {
      const found = vscode.languages.getDiagnostics(uri).filter((d) => d.source === 'Garuda Hooks');
      return found.length > 0 ? found : undefined;
    });
    assert.equal(diagnostic!.message, 'unknown key "timeout" (did you mean "timeoutMs"?)');
    assert.equal(diagnostic!.range.start.line, 5);
    assert.equal(diagnostic!.range.start.character, 8);
    assert.equal(diagnostic!.severity, vscode.DiagnosticSeverity.Error);

    await writeFile(file, '{\n  "hooks": {\n    "stop": [}\n}\n');
    const [syntax] = await eventually('a syntax diagnostic', () => {
      const found = vscode.languages.getDiagnostics(uri).filter((d) => d.source === 'Garuda Hooks' && d.message.startsWith('not valid JSON'));
      return found.length > 0 ? found : undefined;
    });
    assert.equal(syntax!.message, 'not valid JSON: value expected at line 3, column 14');
    assert.equal(syntax!.range.start.line, 2);

    await writeFile(file, { hooks: { stop: [{ command: 'true' }] } });
    await eventually('the diagnostics to clear', () => vscode.languages.getDiagnostics(uri).filter((d) => d.source === 'Garuda Hooks').length === 0);
  });

  it('offers completion from the JSON schema in hooks.json', async () => {
    const file = projectHooksFile('beta');
    await writeFile(file, '{\n  "hooks": {\n    "stop": [\n      { "command": "true",  }\n    ]\n  }\n}\n');
    const document = await vscode.workspace.openTextDocument(vscode.Uri.file(file));
    assert.equal(document.languageId, 'jsonc');
    const position = new vscode.Position(3, 28);
    const labels = await eventually('schema completions', async () => {
      const list = await vscode.commands.executeCommand<vscode.CompletionList>('vscode.executeCompletionItemProvider', document.uri, position);
      const found = list.items.map((item) => (typeof item.label === 'string' ? item.label : item.label.label));
      return found.some((l) => l.includes('timeoutMs')) ? found : undefined;
    });
    assert.ok(labels.some((l) => l.includes('network')));
    assert.ok(!labels.some((l) => l.includes('onFailure')), 'stop hooks have no onFailure');
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  it('runs no hook at all when garudaHooks.enabled is false', async () => {
    const marker = path.join(folder('alpha').uri.fsPath, 'ran');
    await writeFile(userHooksFile(), { hooks: { preToolUse: [{ command: `touch ${marker}; echo no >&2; exit 2` }] } });
    await eventually('the user hook', () => api.activeHooks().length === 1);
    const settings = vscode.workspace.getConfiguration('garudaHooks');
    await settings.update('enabled', false, vscode.ConfigurationTarget.Global);
    try {
      const off = await api.preToolUse({ tool: 'bash', input: { command: 'ls' } });
      assert.deepEqual(off, { decision: 'allow', warnings: [] });
      await assert.rejects(fs.stat(marker));
      assert.equal(api.systemPromptNote(), undefined);
    } finally {
      await settings.update('enabled', undefined, vscode.ConfigurationTarget.Global);
    }
    const on = await api.preToolUse({ tool: 'bash', input: { command: 'ls' } });
    assert.deepEqual([on.decision, on.reason], ['deny', 'no']);
    await fs.stat(marker);
    await removeFile(marker);
    assert.match(api.systemPromptNote()!, /Blocked by a hook:/);
  });

  it('keeps the folders of a multi-root workspace apart', async () => {
    const alpha = { hooks: { preToolUse: [{ command: 'echo alpha says no >&2; exit 2' }] } };
    const beta = { hooks: { preToolUse: [{ command: 'echo beta says no >&2; exit 2' }] } };
    await allowProject('alpha', alpha);
    await writeFile(projectHooksFile('alpha'), alpha);
    await writeFile(projectHooksFile('beta'), beta);
    await eventually('alpha active, beta waiting for consent', () => commandsOf(api.activeHooks()).join() === alpha.hooks.preToolUse[0]!.command);

    const inAlpha = await api.preToolUse({ tool: 'bash', input: { command: 'ls' }, folder: vscode.Uri.joinPath(folder('alpha').uri, 'src', 'a.ts') });
    assert.deepEqual([inAlpha.decision, inAlpha.reason], ['deny', 'alpha says no']);
    const inBeta = await api.preToolUse({ tool: 'bash', input: { command: 'ls' }, folder: folder('beta').uri });
    assert.equal(inBeta.decision, 'allow');
    assert.match(inBeta.warnings.join('\n'), /beta\/\.garuda\/hooks\.json are not run: you have not allowed them yet/);
  });

  it('opens the project hooks file, creating a working example when missing', async () => {
    const file = projectHooksFile('beta');
    await removeFile(file);
    await vscode.commands.executeCommand('garudaHooks.openProjectHooksFile', folder('beta').uri);
    const written = await fs.readFile(file, 'utf8');
    // The editor may still hold an older copy of this file from another test until its watcher catches up.
    await eventually('the example in an editor', () => {
      const editor = vscode.window.activeTextEditor;
      return editor?.document.uri.fsPath === file && editor.document.getText() === written;
    });
    const example = parseHooksFile(written, file, 'project');
    assert.deepEqual(example.problems, []);
    assert.deepEqual(example.hooks.map((h) => h.event), ['preToolUse', 'postToolUse']);
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  it('opens the user hooks file, creating it when missing', async () => {
    await vscode.commands.executeCommand('garudaHooks.openUserHooksFile');
    const editor = await eventually('the user hooks file in an editor', () => (vscode.window.activeTextEditor?.document.uri.fsPath === userHooksFile() ? vscode.window.activeTextEditor : undefined));
    assert.deepEqual(parseHooksFile(editor.document.getText(), userHooksFile(), 'user').problems, []);
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  it('shows the active hooks in a quick pick and reloads on command', async () => {
    await writeFile(userHooksFile(), { hooks: { stop: [{ command: 'npm test' }] } });
    await vscode.commands.executeCommand('garudaHooks.reloadHooks');
    assert.deepEqual(commandsOf(api.activeHooks()), ['npm test']);
    const shown = vscode.commands.executeCommand('garudaHooks.showActiveHooks');
    await new Promise((resolve) => setTimeout(resolve, 300));
    await vscode.commands.executeCommand('workbench.action.closeQuickOpen');
    await shown;
    await vscode.commands.executeCommand('garudaHooks.showLog');
  });
});
