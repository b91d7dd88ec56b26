import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';

describe('zod', () => {
  // Classic zod cannot be tree-shaken: one import adds ~450 KB that every start of the CLI and the
  // extension parses. zod/mini validates the same with the same issues.
  it('is imported only as zod/mini', () => {
    const sources = readdirSync('src', { recursive: true }).map(String).filter((file) => file.endsWith('.ts'));
    const classic = sources.filter((file) => /from 'zod(\/v4)?'|require\('zod'\)/.test(readFileSync(path.join('src', file), 'utf8')));
    assert.deepEqual(classic, []);
  });
});
