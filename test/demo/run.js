'use strict';
// `npm run demo`: code-server with this extension loaded in development mode on the demo workspace
// (test/fixtures/demo: project hooks that guard `git push` and check edited .js files). Prints the
// URL to open and runs until Ctrl+C. Your own ~/.garuda (or $GARUDA_HOME) is used as it is.

const path = require('node:path');
const { startCodeServer } = require('../host/codeServer');

const repo = path.resolve(__dirname, '../..');
const workspace = path.join(repo, 'test/fixtures/demo');
const state = path.join(repo, '.vscode-test/demo');

/** The workbench URL that opens the demo folder with the extension under development. */
function demoUrl(port) {
  const payload = [['extensionDevelopmentPath', `vscode-remote://127.0.0.1:${port}${repo}`], ['skipWelcome', 'true']];
  return `http://127.0.0.1:${port}/?folder=${encodeURIComponent(workspace)}&payload=${encodeURIComponent(JSON.stringify(payload))}`;
}

async function main() {
  const server = await startCodeServer({
    workspace,
    userDataDir: path.join(state, 'user-data'),
    extensionsDir: path.join(state, 'extensions'),
    trust: false,
  });
  console.log(`\nGaruda Hooks demo: open this URL in a browser on this machine (Ctrl+C stops it):\n\n  ${demoUrl(server.port)}\n`);
  console.log('Try: the modal asks to run the demo project\'s hooks; the shield in the status bar and the');
  console.log('"Garuda Hooks" activity bar show them; "Garuda: Test a Tool Call" runs `git push` through the guard.');
  await new Promise(() => {});
}

main().catch((error) => {
  console.error(`demo: ${error.message}`);
  process.exitCode = 1;
});
