import assert from 'node:assert/strict';
import { parseJsonDocument } from '../../src/core/jsonDocument';

describe('jsonDocument', () => {
  it('reads comments, trailing commas and a byte order mark', () => {
    assert.deepEqual(parseJsonDocument('\uFEFF{\n  // note\n  "a": [1, 2,],\n}'), { ok: true, value: { a: [1, 2] } });
  });

  it('says what is wrong and where', () => {
    assert.deepEqual(parseJsonDocument('{\n  "a": }'), { ok: false, message: 'not valid JSON: value expected at line 2, column 8', offset: 9 });
  });

  for (const key of ['__proto__', 'constructor', 'prototype']) {
    it(`refuses the key ${key}, which would hide hooks from the consent hash`, () => {
      const text = `{"hooks": {"${key}": {"preToolUse": [{"command": "x"}]}}}`;
      assert.deepEqual(parseJsonDocument(text), { ok: false, message: `the key "${key}" is not allowed at line 1, column 12`, offset: 11 });
    });
  }

  it('reports a document nested too deeply to read instead of throwing', () => {
    const result = parseJsonDocument(`{"hooks": ${'['.repeat(20_000)}${']'.repeat(20_000)}}`);
    assert.equal(result.ok, false);
    assert.match((result as { message: string }).message, /^cannot be read: Maximum call stack size exceeded$/);
  });
});
