import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { BLOCKED_PREFIX } from '../../src/core/modelText';
import { inputJsonSchema, LM_TOOL_INPUTS, parseToolInput, type LmToolName } from '../../src/core/toolInputs';

interface ContributedTool {
  readonly name: string;
  readonly modelDescription: string;
  readonly inputSchema: unknown;
}

const contributed = (JSON.parse(readFileSync('package.json', 'utf8')) as { contributes: { languageModelTools: ContributedTool[] } }).contributes.languageModelTools;
const names = Object.keys(LM_TOOL_INPUTS) as LmToolName[];

describe('parseToolInput', () => {
  it('accepts a valid input and gives it back typed', () => {
    assert.deepEqual(parseToolInput('garuda_editFile', { path: 'src/a.ts', old_string: 'var', new_string: 'let' }), {
      ok: true,
      input: { path: 'src/a.ts', old_string: 'var', new_string: 'let' },
    });
  });

  it('says which field is missing and what the tool expects', () => {
    assert.deepEqual(parseToolInput('garuda_editFile', { path: 'src/a.ts', new_string: 'let' }), {
      ok: false,
      message: 'Invalid input for garuda_editFile: old_string: required string is missing. Nothing was done. Expected {"path": string, "old_string": string, "new_string": string}.',
    });
  });

  it('names a wrong type, an unknown key and an out-of-range number', () => {
    const parsed = parseToolInput('garuda_runCommand', { command: 3, filePath: 'x', timeoutMs: 5 });
    assert.equal(parsed.ok, false);
    assert.equal(
      !parsed.ok && parsed.message,
      'Invalid input for garuda_runCommand: command: expected string, got 3; timeoutMs: must be at least 1000, got 5; unknown key "filePath". Nothing was done. Expected {"command": string, "cwd"?: string, "timeoutMs"?: number}.',
    );
  });

  it('refuses a URL that is not http or https', () => {
    const parsed = parseToolInput('garuda_fetch', { url: 'file:///etc/passwd' });
    assert.equal(!parsed.ok && parsed.message, 'Invalid input for garuda_fetch: url: expected an http:// or https:// URL. Nothing was done. Expected {"url": string}.');
  });

  it('refuses an input that is not an object', () => {
    const parsed = parseToolInput('garuda_readFile', 'src/a.ts');
    assert.equal(!parsed.ok && parsed.message, 'Invalid input for garuda_readFile: input: expected object, got "src/a.ts". Nothing was done. Expected {"path": string}.');
  });
});

describe('the languageModelTools contribution', () => {
  it('declares every tool, in the same order', () => {
    assert.deepEqual(contributed.map((tool) => tool.name), names);
  });

  for (const name of names) {
    it(`declares the input schema of ${name} that the tool validates`, () => {
      assert.deepEqual(contributed.find((tool) => tool.name === name)?.inputSchema, inputJsonSchema(name));
    });
  }

  it('tells the model about blocking and hook feedback for every guarded tool', () => {
    for (const tool of contributed.filter((t) => LM_TOOL_INPUTS[t.name as LmToolName].tool !== undefined)) {
      assert.ok(tool.modelDescription.includes(BLOCKED_PREFIX.trim()), tool.name);
      assert.ok(tool.modelDescription.includes('<hook_feedback>'), tool.name);
    }
  });
});
