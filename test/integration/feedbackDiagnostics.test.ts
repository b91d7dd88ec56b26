import assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { GarudaHooksApi } from '../../src/api';
import { cleanLine } from '../../src/core/clean';
import { activeApi, folder, invokeTool, removeAllHooks, setUserHooks, writeFile } from './helpers';

const LINT = `if grep -q var "$GARUDA_FILE"; then echo 'src/a.ts:3:5: error Unexpected var' >&2; exit 2; fi`;
// tsc after an edit of a.ts, reporting an error in the file that imports it.
const TSC = `if grep -q number "$GARUDA_FILE"; then echo "src/b.ts(2,7): error TS2322: Type 'number' is not assignable to type 'string'." >&2; exit 2; fi`;

describe('hook feedback as diagnostics', () => {
  let api: GarudaHooksApi;
  const inAlpha = (...parts: string[]) => path.join(folder('alpha').uri.fsPath, ...parts);
  const diagnosticsOf = (file: string) => vscode.languages.getDiagnostics(vscode.Uri.file(file));
  before(async () => {
    api = await activeApi();
  });
  afterEach(async () => {
    await removeAllHooks(api);
    await fs.rm(inAlpha('src'), { recursive: true, force: true });
  });

  it('puts a located line from a tool call on that line, and a passing run clears it', async () => {
    await writeFile(inAlpha('src', 'a.ts'), 'const a = 1;\nconst b = 2;\nvar c = 3;\n');
    await setUserHooks(api, { hooks: { postToolUse: [{ tools: ['edit_file'], command: LINT }] } });
    const answer = await invokeTool('garuda_editFile', { path: 'src/a.ts', old_string: 'const a', new_string: 'const aa' });
    assert.equal(answer, 'Edited alpha/src/a.ts at line 1.\n\n<hook_feedback>\nsrc/a.ts:3:5: error Unexpected var\n</hook_feedback>');
    const [diagnostic, ...others] = diagnosticsOf(inAlpha('src', 'a.ts'));
    assert.deepEqual(others, []);
    assert.equal(diagnostic?.message, 'Unexpected var');
    assert.deepEqual([diagnostic!.range.start.line, diagnostic!.range.start.character], [2, 4]);
    assert.equal(diagnostic!.severity, vscode.DiagnosticSeverity.Error);
    assert.equal(diagnostic!.source, cleanLine(LINT, 40));

    assert.equal(await invokeTool('garuda_editFile', { path: 'src/a.ts', old_string: 'var c', new_string: 'const c' }), 'Edited alpha/src/a.ts at line 3.');
    assert.deepEqual(diagnosticsOf(inAlpha('src', 'a.ts')), []);
  });

  it('puts feedback about another file on that file, until the next run for the edited one', async () => {
    await writeFile(inAlpha('src', 'a.ts'), 'export const a = "x";\n');
    await setUserHooks(api, { hooks: { postToolUse: [{ tools: ['write_file'], command: TSC }] } });
    await invokeTool('garuda_writeFile', { path: 'src/a.ts', content: 'export const a = 1; // number\n' });
    const [diagnostic] = diagnosticsOf(inAlpha('src', 'b.ts'));
    assert.equal(diagnostic?.message, "Type 'number' is not assignable to type 'string'.");
    assert.deepEqual([diagnostic!.range.start.line, diagnostic!.range.start.character, diagnostic!.code], [1, 6, 'TS2322']);
    assert.deepEqual(diagnosticsOf(inAlpha('src', 'a.ts')), []);

    await invokeTool('garuda_writeFile', { path: 'src/a.ts', content: 'export const a = "x";\n' });
    assert.deepEqual(diagnosticsOf(inAlpha('src', 'b.ts')), []);
  });

  it('puts feedback from the API without a position at the top of the file', async () => {
    const command = "echo 'Tests failed: 2 of 9' >&2; exit 2";
    await setUserHooks(api, { hooks: { postToolUse: [{ tools: ['write_file'], command }] } });
    const call = { tool: 'write_file', input: { path: 'src/b.ts' }, folder: folder('alpha').uri };
    assert.equal((await api.postToolUse(call, {})).feedback, '<hook_feedback>\nTests failed: 2 of 9\n</hook_feedback>');
    const [diagnostic] = diagnosticsOf(inAlpha('src', 'b.ts'));
    assert.equal(diagnostic?.message, 'Tests failed: 2 of 9');
    assert.equal(diagnostic!.source, cleanLine(command, 40));
    assert.deepEqual([diagnostic!.range.start.line, diagnostic!.severity], [0, vscode.DiagnosticSeverity.Error]);

    await setUserHooks(api, { hooks: { postToolUse: [{ tools: ['write_file'], command: 'true' }] } });
    await api.postToolUse(call, {});
    assert.deepEqual(diagnosticsOf(inAlpha('src', 'b.ts')), []);
  });
});
