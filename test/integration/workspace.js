'use strict';
// The workspace the integration suite runs in, whichever VS Code hosts it: two folders (alpha, beta)
// in a .code-workspace, and a GARUDA_HOME of its own so the tests never touch the user's hooks.

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

function makeTestWorkspace() {
  const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'garuda-integration-')));
  const folders = ['alpha', 'beta'].map((name) => path.join(base, name));
  const home = path.join(base, 'garuda-home');
  for (const dir of [...folders, home]) fs.mkdirSync(dir, { recursive: true });
  const workspace = path.join(base, 'test.code-workspace');
  fs.writeFileSync(workspace, JSON.stringify({ folders: folders.map((p) => ({ path: p })) }, null, 2));
  return { workspace, home, remove: () => fs.rmSync(base, { recursive: true, force: true }) };
}

module.exports = { makeTestWorkspace, repo: path.resolve(__dirname, '../..'), testsPath: path.resolve(__dirname, '../../out/test/integration/index.js') };
