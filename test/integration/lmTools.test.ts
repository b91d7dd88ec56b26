import assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { GarudaHooksApi } from '../../src/api';
import { activeApi, EXTENSION_ID, folder, invokeTool, removeAllHooks, removeFile, setUserHooks, writeFile } from './helpers';

describe('the guarded language-model tools', () => {
  let api: GarudaHooksApi;
  const alpha = () => folder('alpha').uri.fsPath;
  const fileA = () => path.join(alpha(), 'src', 'a.ts');
  before(async () => {
    api = await activeApi();
  });
  afterEach(async () => {
    await removeAllHooks(api);
    await fs.rm(path.join(alpha(), 'src'), { recursive: true, force: true });
  });

  it('registers every tool it contributes', () => {
    const contributed = (vscode.extensions.getExtension(EXTENSION_ID)!.packageJSON.contributes.languageModelTools as { name: string }[]).map((tool) => tool.name);
    const registered = new Set(vscode.lm.tools.map((tool) => tool.name));
    assert.equal(contributed.length, 6);
    for (const name of contributed) assert.ok(registered.has(name), `${name} is not registered`);
  });

  it('leaves the file untouched and gives the model the reason when a guard blocks an edit', async () => {
    await writeFile(fileA(), 'var x = 1;\n');
    await setUserHooks(api, { hooks: { preToolUse: [{ tools: ['edit_file(src/**)'], command: "echo 'src is frozen' >&2; exit 2" }] } });
    const answer = await invokeTool('garuda_editFile', { path: 'src/a.ts', old_string: 'var', new_string: 'let' });
    assert.equal(answer, 'Blocked by a hook: src is frozen');
    assert.equal(await fs.readFile(fileA(), 'utf8'), 'var x = 1;\n');
  });

  it('edits the file when no guard objects', async () => {
    await writeFile(fileA(), 'var x = 1;\n');
    await setUserHooks(api, { hooks: { preToolUse: [{ tools: ['bash'], command: 'exit 2' }] } });
    assert.equal(await invokeTool('garuda_editFile', { path: 'src/a.ts', old_string: 'var', new_string: 'let' }), 'Edited alpha/src/a.ts at line 1.');
    assert.equal(await fs.readFile(fileA(), 'utf8'), 'let x = 1;\n');
  });

  it('sends the agent back to work from garuda_checkDone until the cap, then says done', async () => {
    await setUserHooks(api, { hooks: { stop: [{ command: "echo 'npm test fails' >&2; exit 2" }] }, maxStopContinuations: 2 });
    const back = (times: string) => `Not done yet. Keep working: npm test fails\n\nThen call garuda_checkDone again (the stop hooks have sent this run back ${times}).`;
    assert.equal(await invokeTool('garuda_checkDone', { summary: 'fixed it' }), back('1 time'));
    assert.equal(await invokeTool('garuda_checkDone', {}), back('2 times'));
    assert.equal(await invokeTool('garuda_checkDone', {}), 'done: no stop hook asks for more work. You may finish.');
  });

  it('runs a command in the workspace folder unless a guard blocks any part of it', async () => {
    const marker = path.join(alpha(), 'src', 'ran');
    await fs.mkdir(path.dirname(marker), { recursive: true });
    await setUserHooks(api, { hooks: { preToolUse: [{ tools: ['bash(git push*)'], command: "echo 'Pushes need a review.' >&2; exit 2" }] } });
    assert.equal(await invokeTool('garuda_runCommand', { command: 'pwd; echo oops >&2' }), `Exit code 0.\n\nstdout:\n${alpha()}\n\nstderr:\noops`);
    assert.equal(await invokeTool('garuda_runCommand', { command: `touch ${marker} && git push` }), 'Blocked by a hook: Pushes need a review.');
    await assert.rejects(fs.stat(marker));
  });

  it('stops a running command when the call is cancelled', async () => {
    const marker = path.join(alpha(), 'src', 'finished');
    await fs.mkdir(path.dirname(marker), { recursive: true });
    const cancel = new vscode.CancellationTokenSource();
    setTimeout(() => cancel.cancel(), 500);
    // VS Code rejects a cancelled call itself; the tool's part is to stop the command.
    await assert.rejects(invokeTool('garuda_runCommand', { command: `sleep 2; touch ${marker}` }, cancel.token), { message: 'Canceled' });
    // Well past the moment the command would have finished had it not been stopped.
    await new Promise((resolve) => setTimeout(resolve, 3000));
    await assert.rejects(fs.stat(marker), 'the command ran on after the cancel');
  });

  it('writes and reads files, and refuses paths outside the workspace', async () => {
    assert.equal(await invokeTool('garuda_writeFile', { path: 'beta/notes/todo.md', content: '# Todo\n' }), 'Created beta/notes/todo.md (7 bytes).');
    assert.equal(await invokeTool('garuda_readFile', { path: path.join(folder('beta').uri.fsPath, 'notes', 'todo.md') }), '# Todo\n');
    await fs.rm(path.join(folder('beta').uri.fsPath, 'notes'), { recursive: true });
    assert.equal(
      await invokeTool('garuda_readFile', { path: '../garuda-home/hooks.json' }),
      '../garuda-home/hooks.json is outside the workspace folders (alpha, beta): the Garuda tools act only inside them. Nothing was done.',
    );
  });

  it('fetches text from a local server unless a guard blocks the domain', async () => {
    const server = http.createServer((_request, response) => response.writeHead(200, { 'content-type': 'text/plain' }).end('hello'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/greeting`;
    try {
      assert.equal(await invokeTool('garuda_fetch', { url }), 'HTTP 200 OK · text/plain · 5 bytes\n\nhello');
      await setUserHooks(api, { hooks: { preToolUse: [{ tools: ['fetch(domain:127.0.0.1)'], command: "echo 'No local fetches.' >&2; exit 2" }] } });
      assert.equal(await invokeTool('garuda_fetch', { url }), 'Blocked by a hook: No local fetches.');
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('answers a bad input with what is wrong, and does nothing', async () => {
    assert.equal(
      await invokeTool('garuda_editFile', { path: 'src/a.ts', new_string: 'let' }),
      'Invalid input for garuda_editFile: old_string: required string is missing. Nothing was done. Expected {"path": string, "old_string": string, "new_string": string}.',
    );
  });

  it('runs no hook and still acts when Garuda Hooks is turned off', async () => {
    await writeFile(fileA(), 'var x = 1;\n');
    await setUserHooks(api, { hooks: { preToolUse: [{ command: "echo 'no' >&2; exit 2" }] } });
    const settings = vscode.workspace.getConfiguration('garudaHooks');
    await settings.update('enabled', false, vscode.ConfigurationTarget.Global);
    try {
      assert.equal(await invokeTool('garuda_editFile', { path: 'src/a.ts', old_string: 'var', new_string: 'let' }), 'Edited alpha/src/a.ts at line 1.');
    } finally {
      await settings.update('enabled', undefined, vscode.ConfigurationTarget.Global);
    }
    await removeFile(fileA());
  });
});
