'use strict';
// Runs an extension's integration tests inside a real VS Code 1.99.3 (code-server 4.99.4, installed on
// first use into .vscode-test/) shown in headless Debian Chromium; nothing is left running afterwards.
//   node test/host/runIntegration.js --extension <dir> --tests <tests/index.js> [--workspace <folder|
//        x.code-workspace>] [--no-trust] [--timeout <seconds, default 600>] [--verbose]
// --extension: folder with the extension's package.json (loaded as extensionDevelopmentPath).
// --tests: module exporting run(): Promise<void> (extensionTestsPath); its console output (mocha's
//   report) is printed here, along with the workbench's own log lines. --workspace: default an empty temp
//   folder. --no-trust: keep Workspace Trust on. --verbose: also print code-server's own output.
// Exit code: 0 passed, 1 tests failed (VS Code's code), 2 host could not run or timed out, 130 Ctrl-C.
// In code: `await require('./test/host/runIntegration').runIntegration({ extensionPath, testsPath,
//   workspace, trust, timeoutMs, env /* added to the extension host's environment */ })` -> exit code.

const fs = require('node:fs');
const path = require('node:path');
const util = require('node:util');
const { startCodeServer, launchBrowser, makeTempDir, removeTempDir } = require('./codeServer');
const { CODE_SERVER_VERSION, INSTALL_DIR } = require('./install');

const DEFAULT_TIMEOUT_MS = 10 * 60_000;
const USAGE = 'Usage: node test/host/runIntegration.js --extension <dir> --tests <index.js> ' +
  '[--workspace <folder|file.code-workspace>] [--no-trust] [--timeout <seconds>] [--verbose]';

function log(message) {
  console.log(`[test-host] ${message}`);
}

function vscodeVersionInstalled() {
  const file = path.join(INSTALL_DIR, 'node_modules', 'code-server', 'lib', 'vscode', 'package.json');
  return JSON.parse(fs.readFileSync(file, 'utf8')).version;
}

/** Absolute paths, checked up front so a typo fails with a message instead of a hanging window. */
function resolveInputs({ extensionPath, testsPath, workspace }) {
  if (!extensionPath || !testsPath) throw new Error('runIntegration needs extensionPath and testsPath');
  const extension = path.resolve(extensionPath);
  if (!fs.existsSync(path.join(extension, 'package.json'))) {
    throw new Error(`No package.json in extension folder ${extension}`);
  }
  const tests = path.resolve(testsPath).replace(/\.js$/, ''); // VS Code requires it without extension
  if (!fs.existsSync(`${tests}.js`) && !fs.existsSync(tests)) {
    throw new Error(`Test entry ${tests}.js not found`);
  }
  const resolvedWorkspace = workspace ? path.resolve(workspace) : undefined;
  if (resolvedWorkspace && !fs.existsSync(resolvedWorkspace)) {
    throw new Error(`Workspace ${resolvedWorkspace} not found`);
  }
  return { extension, tests, workspace: resolvedWorkspace };
}

function testUrl(port, { extension, tests, workspace }) {
  const encodedPath = (absolutePath) => absolutePath.split('/').map(encodeURIComponent).join('/');
  const remote = (absolutePath) => `vscode-remote://127.0.0.1:${port}${encodedPath(absolutePath)}`;
  const payload = [
    ['extensionDevelopmentPath', remote(extension)],
    ['extensionTestsPath', remote(tests)],
    ['skipWelcome', 'true'],
  ];
  const target = workspace.endsWith('.code-workspace')
    ? `workspace=${encodeURIComponent(workspace)}` : `folder=${encodeURIComponent(workspace)}`;
  return `http://127.0.0.1:${port}/?${target}&payload=${encodeURIComponent(JSON.stringify(payload))}`;
}

function timeoutAfter(ms) {
  let timer;
  const promise = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`Integration tests did not finish within ${ms / 1000} s ` +
      '(overall timeout); the window was closed.')), ms);
  });
  return { promise, cancel: () => clearTimeout(timer) };
}

/**
 * The text of a console message as Node would print it. Extension host output reaches the page
 * through the workbench's log service as console.log('%c INFO', 'color: #33f', ...originalArgs),
 * so that prefix is dropped and the original arguments (e.g. mocha's '  %d passing (%s)', 2, '141ms')
 * are formatted with util.format.
 */
function formatConsoleValues(values) {
  let level = '';
  if (typeof values[0] === 'string' && /^%c\s*[A-Z]+$/.test(values[0]) && /^color:/.test(String(values[1]))) {
    level = values[0].replace('%c', '').trim();
    values = values.slice(2);
  }
  if (typeof values[0] === 'string' && values[0].includes('%c')) values = dropCssArguments(values);
  const text = util.format(...values);
  return level === 'WARN' || level === 'ERR' ? `[${level}] ${text}` : text;
}

/** Removes %c directives (browser-only styling) together with the arguments they consume. */
function dropCssArguments([format, ...args]) {
  const kept = [];
  let next = 0;
  const cleaned = format.replace(/%[sdifjoOc%]/g, (directive) => {
    if (directive === '%%') return directive;
    const arg = args[next++];
    if (directive === '%c') return '';
    kept.push(arg);
    return directive;
  });
  return [cleaned, ...kept, ...args.slice(next)];
}

async function consoleMessageText(message) {
  try {
    const args = message.args();
    if (args.length === 0) return message.text(); // e.g. "Failed to load resource: ..."
    return formatConsoleValues(await Promise.all(args.map((arg) => arg.jsonValue())));
  } catch {
    return message.text(); // the page may already be gone
  }
}

/** Prints the page's console in order (formatting is async, so messages are chained). */
function streamConsole(page) {
  let printed = Promise.resolve();
  page.on('console', (message) => {
    const text = consoleMessageText(message);
    printed = printed.then(async () => console.log(await text));
  });
  page.on('pageerror', (error) => console.error(`[page error] ${error.message}`));
  return () => printed;
}

/** Resolves with the code passed to window.codeAutomationExit; rejects if the page dies first. */
async function runTestWindow(browser, url) {
  const page = await browser.newPage();
  let reportExit;
  const exited = new Promise((resolve, reject) => {
    reportExit = resolve;
    page.on('crash', () => reject(new Error('The VS Code page crashed.')));
    browser.context.on('close', () => reject(new Error('Chromium closed before the tests finished.')));
  });
  exited.catch(() => {}); // if goto() fails first, a later rejection must not crash the process
  // Must exist before the workbench loads: it calls this when the extension host's run() settles.
  await page.exposeFunction('codeAutomationExit', (code) => reportExit(Number(code)));
  const consoleFlushed = streamConsole(page);
  await page.goto(url);
  const code = await exited;
  await consoleFlushed();
  return code;
}

async function stopQuietly(what, stop) {
  try {
    await stop();
  } catch (error) {
    console.error(`[test-host] could not stop ${what}: ${error.message}`);
  }
}

/** The value of a promise that may have failed (its error is reported elsewhere), or undefined. */
const valueOrUndefined = (promise) => promise?.catch(() => undefined);

/** Runs the tests; resolves with their exit code (0 = all passed). Throws when the host cannot run. */
async function runIntegration({
  extensionPath, testsPath, workspace, trust = true, timeoutMs = DEFAULT_TIMEOUT_MS, env = {},
  verbose = false,
}) {
  const inputs = resolveInputs({ extensionPath, testsPath, workspace });
  const tempRoot = makeTempDir('garuda-test-host-');
  if (!inputs.workspace) {
    inputs.workspace = path.join(tempRoot, 'workspace');
    fs.mkdirSync(inputs.workspace);
  }
  const started = {}; // promises of what was started, so cleanup also covers a half-finished start
  const runSession = async () => {
    started.server = startCodeServer({
      workspace: inputs.workspace,
      userDataDir: path.join(tempRoot, 'user-data'),
      extensionsDir: path.join(tempRoot, 'extensions'),
      trust,
      env,
      onOutput: verbose ? (text) => process.stderr.write(text) : undefined,
    });
    const server = await started.server;
    log(`VS Code ${vscodeVersionInstalled()} (code-server ${CODE_SERVER_VERSION}) at ${server.url}`);
    started.browser = launchBrowser();
    return runTestWindow(await started.browser, testUrl(server.port, inputs));
  };
  const timeout = timeoutAfter(timeoutMs);
  try {
    return await Promise.race([runSession(), timeout.promise]);
  } finally {
    timeout.cancel();
    const browser = await valueOrUndefined(started.browser);
    if (browser) await stopQuietly('Chromium', browser.close);
    const server = await valueOrUndefined(started.server);
    if (server) await stopQuietly('code-server', server.stop);
    removeTempDir(tempRoot);
  }
}

function parseArgs(argv) {
  const options = { trust: true };
  const valueOf = (i) => {
    if (i + 1 >= argv.length) throw new Error(`${argv[i]} needs a value`);
    return argv[i + 1];
  };
  for (let i = 0; i < argv.length; i++) {
    switch (argv[i]) {
      case '--extension': options.extensionPath = valueOf(i++); break;
      case '--tests': options.testsPath = valueOf(i++); break;
      case '--workspace': options.workspace = valueOf(i++); break;
      case '--no-trust': options.trust = false; break;
      case '--verbose': options.verbose = true; break;
      case '--timeout': options.timeoutMs = Number(valueOf(i++)) * 1000; break;
      default: throw new Error(`Unknown argument ${argv[i]}`);
    }
  }
  if (!options.extensionPath || !options.testsPath) throw new Error('--extension and --tests are required');
  if (options.timeoutMs !== undefined && !(options.timeoutMs > 0)) {
    throw new Error('--timeout needs a number of seconds > 0');
  }
  return options;
}

async function main() {
  const started = Date.now();
  let options;
  try {
    options = parseArgs(process.argv.slice(2));
  } catch (error) {
    console.error(`[test-host] ${error.message}\n${USAGE}`);
    process.exitCode = 2;
    return;
  }
  let code;
  try {
    code = await runIntegration(options);
    const seconds = ((Date.now() - started) / 1000).toFixed(1);
    log(`tests ${code === 0 ? 'passed' : `failed (exit code ${code})`} in ${seconds} s`);
  } catch (error) {
    console.error(`[test-host] ERROR: ${error.message}`);
    code = 2;
  }
  process.exitCode = code;
}

module.exports = { runIntegration };

if (require.main === module) main();
