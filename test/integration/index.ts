// The module VS Code's extension host loads as extensionTestsPath: runs every suite bundled beside it.
import * as fs from 'node:fs';
import * as path from 'node:path';
import Mocha from 'mocha';

/** The suite that needs an untrusted workspace runs alone, in a window opened with Workspace Trust on. */
const RESTRICTED_SUITE = 'restricted.test.js';

export function run(): Promise<void> {
  const mocha = new Mocha({ ui: 'bdd', color: false, timeout: 30_000 });
  const restricted = process.env.GARUDA_TEST_RESTRICTED === '1';
  const files = fs.readdirSync(__dirname).filter((f) => f.endsWith('.test.js') && (f === RESTRICTED_SUITE) === restricted);
  for (const file of files.sort()) mocha.addFile(path.join(__dirname, file));
  return new Promise((resolve, reject) => {
    mocha.run((failures) => (failures > 0 ? reject(new Error(`${failures} integration tests failed.`)) : resolve()));
  });
}
