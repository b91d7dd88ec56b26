import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';

// src/core is what the CLI and the extension share: it must run on plain Node, without the editor.
describe('layering', () => {
  const core = path.resolve('src/core');
  const files = readdirSync(core).filter((f) => f.endsWith('.ts'));

  it('finds the core modules', () => {
    assert.ok(files.length > 10, `only ${files.length} files in ${core}`);
  });

  it('never imports vscode from src/core', () => {
    const offenders = files.filter((f) => /(from\s+['"]vscode['"]|require\(\s*['"]vscode['"]\s*\)|import\(\s*['"]vscode['"]\s*\))/.test(readFileSync(path.join(core, f), 'utf8')));
    assert.deepEqual(offenders, []);
  });

  it('never imports the editor glue from src/core', () => {
    const offenders = files.filter((f) => /from\s+['"]\.\.\//.test(readFileSync(path.join(core, f), 'utf8')));
    assert.deepEqual(offenders, []);
  });
});
