'use strict';
// Runs the integration suite inside a real VS Code (code-server, see test/host/): first in a trusted
// window, then the Restricted Mode suite in a window with Workspace Trust on and the workspace untrusted.
//   node test/integration/run.js [--verbose]

const { runIntegration } = require('../host/runIntegration');
const { makeTestWorkspace, repo, testsPath } = require('./workspace');

async function runWindow(restricted) {
  const { workspace, home, remove } = makeTestWorkspace();
  try {
    return await runIntegration({
      extensionPath: repo,
      testsPath,
      workspace,
      trust: !restricted,
      verbose: process.argv.includes('--verbose'),
      env: { GARUDA_HOME: home, GARUDA_TEST_RESTRICTED: restricted ? '1' : '0' },
    });
  } finally {
    remove();
  }
}

async function main() {
  const trusted = await runWindow(false);
  const restricted = await runWindow(true);
  return trusted || restricted;
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
