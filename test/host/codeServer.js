'use strict';
// Starts code-server (the VS Code under test) and Debian's Chromium (the window it runs in), and
// makes sure neither outlives this process. See /work/shared/notes/vscode-test-host.md.

const { spawn } = require('node:child_process');
const crypto = require('node:crypto');
const fs = require('node:fs');
const http = require('node:http');
const net = require('node:net');
const os = require('node:os');
const path = require('node:path');
const { ensureCodeServer } = require('./install');

const CHROMIUM_PATH = '/usr/bin/chromium';
const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking',
  '--disable-component-update', '--disable-sync', '--no-first-run'];
const STARTUP_TIMEOUT_MS = 60_000;
const STOP_GRACE_MS = 3_000;
const OUTPUT_LINES_KEPT = 40;

// What this process started, stopped or removed when it exits or is interrupted.
const runningRuns = new Set(); // code-server runs: { pgid, marker }
const openBrowsers = new Set(); // their close() functions
const tempDirs = new Set();

function findFreePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

function codeServerArgs({ port, workspace, userDataDir, extensionsDir, configFile, trust, extraArgs }) {
  const args = ['--config', configFile, '--auth', 'none', '--bind-addr', `127.0.0.1:${port}`,
    '--disable-telemetry', '--disable-update-check', '--ignore-last-opened',
    '--user-data-dir', userDataDir, '--extensions-dir', extensionsDir];
  if (trust) args.push('--disable-workspace-trust');
  args.push(...extraArgs);
  if (workspace) args.push(workspace);
  return args;
}

/**
 * The parent's environment minus what would make code-server talk to another VS Code or port,
 * plus extraEnv (which the extension host inherits).
 */
function codeServerEnvironment(extraEnv) {
  const env = { ...process.env };
  for (const key of Object.keys(env)) {
    // Inside a VS Code terminal, VSCODE_IPC_HOOK_CLI makes code-server hand the folder to that
    // editor instead of starting; ELECTRON_RUN_AS_NODE and friends change how it runs.
    if (key.startsWith('VSCODE_') || key.startsWith('ELECTRON_')) delete env[key];
  }
  delete env.PORT; // code-server reads $PORT as a port override
  delete env.PASSWORD;
  delete env.HASHED_PASSWORD;
  // No extension gallery: the default (open-vsx.org) is unreachable here and each query logs an error.
  env.EXTENSIONS_GALLERY = '{}';
  return { ...env, ...extraEnv };
}

/** Without --config, code-server writes ~/.config/code-server/config.yaml with a random password. */
function writeConfigFile(dir) {
  const file = path.join(dir, 'code-server-config.yaml');
  fs.writeFileSync(file, 'auth: none\ncert: false\n');
  return file;
}

function keepLastLines(stream, lines, onOutput) {
  let partial = '';
  stream.setEncoding('utf8');
  stream.on('data', (chunk) => {
    if (onOutput) onOutput(chunk);
    const parts = (partial + chunk).split('\n');
    partial = parts.pop();
    lines.push(...parts);
    if (lines.length > OUTPUT_LINES_KEPT) lines.splice(0, lines.length - OUTPUT_LINES_KEPT);
  });
}

function httpOk(url) {
  return new Promise((resolve) => {
    const request = http.get(url, { timeout: 2_000 }, (response) => {
      response.resume();
      resolve(response.statusCode >= 200 && response.statusCode < 400);
    });
    request.on('timeout', () => request.destroy());
    request.on('error', () => resolve(false));
  });
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function waitUntilHealthy(url, child, outputLines) {
  const deadline = Date.now() + STARTUP_TIMEOUT_MS;
  const describeOutput = () => outputLines.length
    ? `\nLast code-server output:\n  ${outputLines.join('\n  ')}` : '\n(code-server printed nothing)';
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) {
      const how = child.exitCode ?? child.signalCode;
      throw new Error(`code-server exited during startup (${how}).${describeOutput()}`);
    }
    if (await httpOk(`${url}healthz`)) return;
    await sleep(200);
  }
  throw new Error(`code-server did not answer ${url}healthz within ${STARTUP_TIMEOUT_MS / 1000} s.` +
    describeOutput());
}

/**
 * Processes still running, as {pid, ppid, pgrp, cmdline} (Linux /proc). Zombies are left out: this
 * machine's PID 1 reaps orphans only after a while, and a zombie holds no resources.
 */
function livingProcesses() {
  const living = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      const [state, ppid, pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (state === 'Z') continue;
      const cmdline = fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8').replace(/\0/g, ' ');
      living.push({ pid: Number(entry), ppid: Number(ppid), pgrp: Number(pgrp), cmdline });
    } catch {
      // exited while we looked
    }
  }
  return living;
}

/** Whether a process inherited the environment variable that marks one code-server run. */
function carriesRunMarker(pid, marker) {
  try {
    return fs.readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').includes(marker);
  } catch {
    return false;
  }
}

/** Living processes of one run: its group, and whatever left the group but kept its environment. */
function runProcesses({ pgid, marker }) {
  return livingProcesses().filter((proc) => proc.pgrp === pgid || carriesRunMarker(proc.pid, marker));
}

/** Waits until listProcesses() is empty; SIGKILLs what is left after graceMs. */
async function waitUntilGone(listProcesses, graceMs) {
  const killAt = Date.now() + graceMs;
  for (let left = listProcesses(); left.length > 0; left = listProcesses()) {
    if (Date.now() >= killAt) left.forEach(({ pid }) => signal(pid, 'SIGKILL'));
    await sleep(100);
  }
}

function signal(pid, name) {
  try { process.kill(pid, name); } catch { /* already gone */ }
}

/**
 * Stops a code-server run: its process group, and what the extension under test started in a new
 * group or session (detached children are orphaned when the extension host exits, so they cannot be
 * found as descendants; the run marker in their environment finds them).
 */
async function stopRun(run) {
  signal(-run.pgid, 'SIGTERM');
  runProcesses(run).forEach(({ pid }) => signal(pid, 'SIGTERM'));
  await waitUntilGone(() => runProcesses(run), STOP_GRACE_MS);
  runningRuns.delete(run);
}

function killRunsNow() {
  for (const run of runningRuns) {
    signal(-run.pgid, 'SIGKILL');
    runProcesses(run).forEach(({ pid }) => signal(pid, 'SIGKILL'));
  }
}

/** For 'exit', where only synchronous work runs. */
function cleanUpNow() {
  killRunsNow();
  for (const dir of tempDirs) fs.rmSync(dir, { recursive: true, force: true });
}

let interrupted = false;
async function cleanUpAndExit(signalName, exitCode) {
  if (interrupted) process.exit(exitCode); // a second Ctrl-C: do not wait any longer
  interrupted = true;
  console.error(`[test-host] ${signalName}: stopping code-server and Chromium`);
  killRunsNow();
  const browsersClosed = Promise.allSettled([...openBrowsers].map((close) => close()));
  await Promise.race([browsersClosed, sleep(STOP_GRACE_MS + 2_000)]);
  process.exit(exitCode); // then cleanUpNow and playwright's own exit handler run
}

let exitHandlersInstalled = false;
function installExitHandlers() {
  if (exitHandlersInstalled) return;
  exitHandlersInstalled = true;
  process.on('exit', cleanUpNow);
  for (const [signalName, exitCode] of [['SIGINT', 130], ['SIGTERM', 143], ['SIGHUP', 129]]) {
    process.on(signalName, () => cleanUpAndExit(signalName, exitCode));
  }
}

/**
 * Starts code-server on a free loopback port and waits until it answers. `trust: false` keeps
 * Workspace Trust on; `env` is added to its environment (the extension host inherits it);
 * `onOutput(text)` receives its stdout/stderr as it comes.
 * @returns {Promise<{url: string, port: number, pid: number, output: string[], stop(): Promise<void>}>}
 */
async function startCodeServer({
  workspace, userDataDir, extensionsDir, trust = true, extraArgs = [], env = {}, onOutput,
}) {
  if (!userDataDir || !extensionsDir) throw new Error('startCodeServer needs userDataDir and extensionsDir');
  const bin = await ensureCodeServer();
  fs.mkdirSync(userDataDir, { recursive: true });
  fs.mkdirSync(extensionsDir, { recursive: true });
  const port = await findFreePort();
  const url = `http://127.0.0.1:${port}/`;
  const configFile = writeConfigFile(userDataDir);
  const args = codeServerArgs({ port, workspace, userDataDir, extensionsDir, configFile, trust, extraArgs });

  installExitHandlers();
  const runId = crypto.randomUUID();
  // Its own process group, so stop() reaches the extension host, file watcher and pty host too.
  const child = spawn(bin, args, {
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...codeServerEnvironment(env), TEST_HOST_RUN_ID: runId },
  });
  const run = { pgid: child.pid, marker: `TEST_HOST_RUN_ID=${runId}` };
  runningRuns.add(run);
  const output = [];
  keepLastLines(child.stdout, output, onOutput);
  keepLastLines(child.stderr, output, onOutput);
  child.on('error', (error) => output.push(`spawn error: ${error.message}`));

  let stopping;
  const stop = () => (stopping ??= stopRun(run));
  try {
    await waitUntilHealthy(url, child, output);
  } catch (error) {
    await stop();
    throw error;
  }
  return { url, port, pid: child.pid, output, stop };
}

function loadPlaywrightChromium() {
  if (!fs.existsSync(CHROMIUM_PATH)) {
    throw new Error(`Chromium not found at ${CHROMIUM_PATH}; install it with: apt-get install -y chromium`);
  }
  try {
    return require('playwright-core').chromium;
  } catch {
    throw new Error('playwright-core is not installed; run `npm ci` (it is a devDependency).');
  }
}

/**
 * Launches Debian's Chromium through playwright-core with a fresh profile in a temp dir.
 * Returns { context, userDataDir, newPage(), close() }: context is a playwright BrowserContext
 * (it emits 'close' if Chromium goes away); close() resolves once every Chromium process of this
 * profile has exited and the profile is deleted.
 */
async function launchBrowser({ headless = true, extraArgs = [] } = {}) {
  const chromium = loadPlaywrightChromium();
  installExitHandlers();
  const userDataDir = makeTempDir('garuda-chromium-');
  let context;
  try {
    context = await chromium.launchPersistentContext(userDataDir, {
      executablePath: CHROMIUM_PATH, headless, args: [...CHROMIUM_ARGS, ...extraArgs],
      // Signals are handled by installExitHandlers (which also stops code-server); playwright still
      // kills Chromium when this process exits.
      handleSIGINT: false, handleSIGTERM: false, handleSIGHUP: false,
      // Keeps Debian Chromium's crash handler database (~/.config/chromium) inside the profile, so
      // nothing is written to $HOME and close() can find the handler by its command line.
      env: { ...process.env, XDG_CONFIG_HOME: path.join(userDataDir, 'xdg-config'),
        XDG_CACHE_HOME: path.join(userDataDir, 'xdg-cache') },
    });
  } catch (error) {
    removeTempDir(userDataDir);
    throw new Error(`Chromium (${CHROMIUM_PATH}) did not start: ${error.message}`);
  }
  let closing;
  const close = () => (closing ??= (async () => {
    await context.close().catch(() => {});
    // Renderers, the zygote and the crash handler can outlive the browser process for a moment.
    const chromiumProcesses = () => livingProcesses().filter((proc) => proc.cmdline.includes(userDataDir));
    await waitUntilGone(chromiumProcesses, STOP_GRACE_MS);
    removeTempDir(userDataDir);
    openBrowsers.delete(close);
  })());
  openBrowsers.add(close);
  return { context, userDataDir, newPage: () => context.newPage(), close };
}

/** A fresh temporary directory, removed at the latest when this process exits. */
function makeTempDir(prefix) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  tempDirs.add(dir);
  return dir;
}

function removeTempDir(dir) {
  fs.rmSync(dir, { recursive: true, force: true });
  tempDirs.delete(dir);
}

module.exports = {
  startCodeServer, launchBrowser, makeTempDir, removeTempDir, findFreePort, livingProcesses,
};
