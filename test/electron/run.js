'use strict';
// `npm run test:electron`: the same integration suite in desktop VS Code through @vscode/test-electron.
// It downloads VS Code (the engines.vscode floor, 1.99.3) unless VSCODE_EXECUTABLE_PATH names one;
// machines without internet need that variable.

const { runTests } = require('@vscode/test-electron');
const { makeTestWorkspace, repo, testsPath } = require('../integration/workspace');

async function main() {
  const { workspace, home, remove } = makeTestWorkspace();
  try {
    await runTests({
      version: '1.99.3',
      ...(process.env.VSCODE_EXECUTABLE_PATH && { vscodeExecutablePath: process.env.VSCODE_EXECUTABLE_PATH }),
      extensionDevelopmentPath: repo,
      extensionTestsPath: testsPath,
      launchArgs: [workspace, '--disable-extensions', '--disable-workspace-trust'],
      extensionTestsEnv: { GARUDA_HOME: home },
    });
  } finally {
    remove();
  }
}

main().catch((error) => {
  console.error(`test:electron: ${error instanceof Error ? error.message : String(error)}`);
  if (!process.env.VSCODE_EXECUTABLE_PATH) console.error('Without internet, set VSCODE_EXECUTABLE_PATH to a VS Code 1.99+ executable.');
  process.exitCode = 1;
});
