'use strict';
// Runs the integration suite inside a real VS Code (code-server, see test/host/) on a two-folder
// workspace with its own GARUDA_HOME, so the tests never touch the user's real hooks or consent.
//   node test/integration/run.js [--no-trust] [--verbose]

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { runIntegration } = require('../host/runIntegration');

const repo = path.resolve(__dirname, '../..');

async function main() {
  const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'garuda-integration-')));
  const folders = ['alpha', 'beta'].map((name) => path.join(base, name));
  const home = path.join(base, 'garuda-home');
  for (const dir of [...folders, home]) fs.mkdirSync(dir, { recursive: true });
  const workspace = path.join(base, 'test.code-workspace');
  fs.writeFileSync(workspace, JSON.stringify({ folders: folders.map((p) => ({ path: p })) }, null, 2));
  try {
    return await runIntegration({
      extensionPath: repo,
      testsPath: path.join(repo, 'out/test/integration/index.js'),
      workspace,
      trust: !process.argv.includes('--no-trust'),
      verbose: process.argv.includes('--verbose'),
      env: { GARUDA_HOME: home },
    });
  } finally {
    fs.rmSync(base, { recursive: true, force: true });
  }
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error) => {
    console.error(`[integration] the test host could not run: ${error.message}`);
    process.exitCode = 2;
  },
);
