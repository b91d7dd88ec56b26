'use strict';
// Starts code-server (the VS Code under test) and Debian's Chromium (the window it runs in), and
// makes sure neither outlives this process. See /work/shared/notes/vscode-test-host.md.

const { spawn } = require('node:child_process');
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

// Process groups of running code-servers, killed when this process exits or is interrupted.
const runningGroups = new Set();

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

/** The parent's environment minus what would make code-server talk to another VS Code or port. */
function codeServerEnvironment() {
  const env = { ...process.env };
  for (const key of Object.keys(env)) {
    // Inside a VS Code terminal, VSCODE_IPC_HOOK_CLI makes code-server hand the folder to that
    // editor instead of starting; ELECTRON_RUN_AS_NODE and friends change how it runs.
    if (key.startsWith('VSCODE_') || key.startsWith('ELECTRON_')) delete env[key];
  }
  delete env.PORT; // code-server reads $PORT as a port override
  delete env.PASSWORD;
  delete env.HASHED_PASSWORD;
  return env;
}

/** Without --config, code-server writes ~/.config/code-server/config.yaml with a random password. */
function writeConfigFile(dir) {
  const file = path.join(dir, 'code-server-config.yaml');
  fs.writeFileSync(file, 'auth: none\ncert: false\n');
  return file;
}

function keepLastLines(stream, lines) {
  let partial = '';
  stream.setEncoding('utf8');
  stream.on('data', (chunk) => {
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
      throw new Error(`code-server exited during startup (${child.exitCode ?? child.signalCode}).${describeOutput()}`);
    }
    if (await httpOk(`${url}healthz`)) return;
    await sleep(200);
  }
  throw new Error(`code-server did not answer ${url}healthz within ${STARTUP_TIMEOUT_MS / 1000} s.${describeOutput()}`);
}

/** Members of a process group that are still running (zombies excluded: a container's PID 1 may never reap them). */
function livingGroupMembers(pgid) {
  try {
    return fs.readdirSync('/proc').filter((entry) => /^\d+$/.test(entry)).filter((pid) => {
      try {
        const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
        const [state, , pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        return Number(pgrp) === pgid && state !== 'Z';
      } catch {
        return false; // exited while we looked
      }
    });
  } catch {
    try { process.kill(-pgid, 0); return [pgid]; } catch { return []; } // no /proc: ask the kernel
  }
}

function signalGroup(pgid, signal) {
  try { process.kill(-pgid, signal); } catch { /* already gone */ }
}

async function stopGroup(pgid) {
  signalGroup(pgid, 'SIGTERM');
  const killAt = Date.now() + STOP_GRACE_MS;
  while (livingGroupMembers(pgid).length > 0) {
    if (Date.now() >= killAt) signalGroup(pgid, 'SIGKILL');
    await sleep(100);
  }
  runningGroups.delete(pgid);
}

let exitHandlersInstalled = false;
function killAllGroupsNow() {
  for (const pgid of runningGroups) signalGroup(pgid, 'SIGKILL');
}
function installExitHandlers() {
  if (exitHandlersInstalled) return;
  exitHandlersInstalled = true;
  process.on('exit', killAllGroupsNow);
  for (const [signal, code] of [['SIGINT', 130], ['SIGTERM', 143], ['SIGHUP', 129]]) {
    process.on(signal, () => {
      console.error(`[test-host] ${signal}: stopping code-server`);
      killAllGroupsNow();
      process.exit(code); // 'exit' handlers (ours and playwright's) still run
    });
  }
}

/**
 * Starts code-server on a free loopback port and waits until it answers.
 * @returns {Promise<{url: string, port: number, pid: number, output: string[], stop(): Promise<void>}>}
 */
async function startCodeServer({ workspace, userDataDir, extensionsDir, trust = true, extraArgs = [] }) {
  if (!userDataDir || !extensionsDir) throw new Error('startCodeServer needs userDataDir and extensionsDir');
  const bin = await ensureCodeServer();
  fs.mkdirSync(userDataDir, { recursive: true });
  fs.mkdirSync(extensionsDir, { recursive: true });
  const port = await findFreePort();
  const url = `http://127.0.0.1:${port}/`;
  const configFile = writeConfigFile(userDataDir);
  const args = codeServerArgs({ port, workspace, userDataDir, extensionsDir, configFile, trust, extraArgs });

  installExitHandlers();
  // Its own process group, so stop() reaches the extension host, file watcher and pty host too.
  const child = spawn(bin, args, { detached: true, stdio: ['ignore', 'pipe', 'pipe'], env: codeServerEnvironment() });
  runningGroups.add(child.pid);
  const output = [];
  keepLastLines(child.stdout, output);
  keepLastLines(child.stderr, output);
  child.on('error', (error) => output.push(`spawn error: ${error.message}`));

  let stopping;
  const stop = () => (stopping ??= stopGroup(child.pid));
  try {
    await waitUntilHealthy(url, child, output);
  } catch (error) {
    await stop();
    throw error;
  }
  return { url, port, pid: child.pid, output, stop };
}

/**
 * Launches Debian's Chromium through playwright-core with a fresh, temporary profile
 * (playwright creates it and deletes it on close). Returns a playwright Browser.
 */
async function launchBrowser({ headless = true, extraArgs = [] } = {}) {
  if (!fs.existsSync(CHROMIUM_PATH)) {
    throw new Error(`Chromium not found at ${CHROMIUM_PATH}; install it with: apt-get install -y chromium`);
  }
  let chromium;
  try {
    ({ chromium } = require('playwright-core'));
  } catch {
    throw new Error('playwright-core is not installed; run npm ci (it is a devDependency).');
  }
  return chromium.launch({ executablePath: CHROMIUM_PATH, headless, args: [...CHROMIUM_ARGS, ...extraArgs] });
}

/** A fresh temporary directory (for user data, extensions, reports). */
function makeTempDir(prefix) {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

module.exports = { startCodeServer, launchBrowser, makeTempDir, findFreePort };
