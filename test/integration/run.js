'use strict';
// Runs the integration suite inside a real VS Code (code-server, see test/host/).
//   node test/integration/run.js [--no-trust] [--verbose]

const { runIntegration } = require('../host/runIntegration');
const { makeTestWorkspace, repo, testsPath } = require('./workspace');

async function main() {
  const { workspace, home, remove } = makeTestWorkspace();
  try {
    return await runIntegration({
      extensionPath: repo,
      testsPath,
      workspace,
      trust: !process.argv.includes('--no-trust'),
      verbose: process.argv.includes('--verbose'),
      env: { GARUDA_HOME: home },
    });
  } finally {
    remove();
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
