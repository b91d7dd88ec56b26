'use strict';
// Installs the integration-test host: code-server 4.99.4 (= VS Code 1.99.3, the newest release that
// runs on Node 20) into <repo>/.vscode-test/code-server/, outside the project's own dependencies.
// Usage: `node test/host/install.js` (a no-op when already installed), or `ensureCodeServer()`.
// Why each step exists: /work/shared/notes/vscode-test-host.md.

const { spawn, spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const CODE_SERVER_VERSION = '4.99.4';
const VSCODE_VERSION = '1.99.3';
const REPO_ROOT = path.resolve(__dirname, '..', '..');
const INSTALL_DIR = path.join(REPO_ROOT, '.vscode-test', 'code-server');
const CODE_SERVER_BIN = path.join(INSTALL_DIR, 'node_modules', '.bin', 'code-server');
const MARKER_FILE = path.join(INSTALL_DIR, 'installed.json');
// Several test runs may start at once; only one may install (a second one would delete its files).
const LOCK_DIR = path.join(REPO_ROOT, '.vscode-test', 'code-server.install-lock');
const STALE_LOCK_MS = 10_000;
const REQUIRED_DEBIAN_PACKAGES = ['libkrb5-dev', 'ripgrep'];

// @vscode/ripgrep's postinstall downloads rg from GitHub (unreachable here) unless it finds this archive.
const RIPGREP_CACHE_ARCHIVE = path.join(
  os.tmpdir(), 'vscode-ripgrep-cache-1.15.11', 'ripgrep-v13.0.0-10-x86_64-unknown-linux-musl.tar.gz');

// npm 11.19 runs dependency install scripts nobody approved, but warns ("npm warn install-scripts
// 2 packages have install scripts not yet covered by allowScripts": code-server, argon2); with
// strict-allow-scripts it fails instead, and its docs announce blocking them by default. code-server
// needs its postinstall, which runs `npm install` in lib/vscode and lib/vscode/extensions, and the
// native builds inside those nested installs. An approval list cannot reach them: npm exports
// `allow-scripts` to the postinstall's environment and the nested project-scoped installs then fail
// with EALLOWSCRIPTS ("--allow-scripts is not allowed in project-scoped installs"). So this isolated
// install of a pinned, shrinkwrapped package sets dangerously-allow-all-scripts, and
// verifyPostinstallRan() checks the outcome.

// Files only a completed postinstall leaves behind: if one is missing, the host is broken.
const POSTINSTALL_OUTPUTS = [
  'node_modules/code-server/lib/vscode/node_modules.asar',
  'node_modules/code-server/lib/vscode/node_modules/@vscode/ripgrep/bin/rg',
  'node_modules/code-server/lib/vscode/node_modules/node-pty/build/Release/pty.node',
  'node_modules/code-server/lib/vscode/node_modules/kerberos/build/Release/kerberos.node',
  'node_modules/code-server/lib/vscode/node_modules/@vscode/spdlog/build/Release/spdlog.node',
  'node_modules/code-server/lib/vscode/extensions/node_modules',
  'node_modules/argon2/lib/binding/napi-v3/argon2.node',
];

function log(message) {
  console.log(`[test-host] ${message}`);
}

function isInstalled() {
  if (!fs.existsSync(CODE_SERVER_BIN) || !fs.existsSync(MARKER_FILE)) return false;
  try {
    return JSON.parse(fs.readFileSync(MARKER_FILE, 'utf8')).codeServer === CODE_SERVER_VERSION;
  } catch {
    return false;
  }
}

function checkNodeVersion() {
  const major = Number(process.versions.node.split('.')[0]);
  // code-server's postinstall exits with "code-server currently requires node v20" otherwise.
  if (major !== 20) {
    throw new Error(`code-server ${CODE_SERVER_VERSION} installs only under Node 20 (its postinstall ` +
      `refuses other versions); this is Node ${process.versions.node}.`);
  }
}

function isDebianPackageInstalled(name) {
  const result = spawnSync('dpkg-query', ['-W', '-f=${Status}', name], { encoding: 'utf8' });
  return result.status === 0 && result.stdout.includes('install ok installed');
}

function checkDebianPackages() {
  const missing = REQUIRED_DEBIAN_PACKAGES.filter((name) => !isDebianPackageInstalled(name));
  if (missing.length > 0) {
    throw new Error(`Missing Debian package(s) needed to install code-server: ${missing.join(', ')}. ` +
      `Install with: apt-get install -y ${missing.join(' ')}`);
  }
  if (!fs.existsSync('/usr/bin/rg')) {
    throw new Error('/usr/bin/rg not found although ripgrep is installed; reinstall the ripgrep package.');
  }
}

function prepareRipgrepCache() {
  if (fs.existsSync(RIPGREP_CACHE_ARCHIVE)) return;
  fs.mkdirSync(path.dirname(RIPGREP_CACHE_ARCHIVE), { recursive: true });
  const partial = `${RIPGREP_CACHE_ARCHIVE}.${process.pid}.tmp`;
  const result = spawnSync('tar', ['-czf', partial, '-C', '/usr/bin', 'rg'], { encoding: 'utf8' });
  if (result.status !== 0) {
    throw new Error(`Could not pack /usr/bin/rg into ${RIPGREP_CACHE_ARCHIVE}: ` +
      `${result.stderr || result.error}`);
  }
  fs.renameSync(partial, RIPGREP_CACHE_ARCHIVE); // atomic, so a concurrent reader never sees half a file
  log(`packed /usr/bin/rg into ${RIPGREP_CACHE_ARCHIVE}`);
}

function npmInstallEnvironment() {
  return {
    ...process.env,
    // The postinstall checks this variable itself when run as root; npm 11 no longer knows the
    // option and warns 'Unknown env config "unsafe-perm"', which is expected.
    npm_config_unsafe_perm: 'true',
    // node-pty's postinstall runs `npx node-gyp`, which would otherwise stop at a prompt.
    npm_config_yes: 'true',
    npm_config_ignore_scripts: 'false',
    npm_config_dangerously_allow_all_scripts: 'true',
    npm_config_fund: 'false',
    npm_config_audit: 'false',
    npm_config_update_notifier: 'false',
  };
}

/** Runs npm, streaming its output to the terminal and to install.log. */
function runNpmInstall() {
  const args = ['install', '--no-save', '--no-package-lock', '--prefix', INSTALL_DIR,
    `code-server@${CODE_SERVER_VERSION}`];
  log(`npm ${args.join(' ')}  (log: ${path.join(INSTALL_DIR, 'install.log')})`);
  const logStream = fs.createWriteStream(path.join(INSTALL_DIR, 'install.log'));
  return new Promise((resolve, reject) => {
    const child = spawn('npm', args, { cwd: INSTALL_DIR, env: npmInstallEnvironment() });
    const forward = (target) => (chunk) => { target.write(chunk); logStream.write(chunk); };
    child.stdout.on('data', forward(process.stdout));
    child.stderr.on('data', forward(process.stderr));
    child.on('error', (error) => { logStream.end(); reject(error); });
    child.on('close', (code, signal) => {
      logStream.end();
      if (code === 0) resolve();
      else {
        reject(new Error(`npm install of code-server@${CODE_SERVER_VERSION} failed ` +
          `(exit ${code ?? signal}); see ${path.join(INSTALL_DIR, 'install.log')}`));
      }
    });
  });
}

function verifyPostinstallRan() {
  const missing = POSTINSTALL_OUTPUTS.filter((rel) => !fs.existsSync(path.join(INSTALL_DIR, rel)));
  if (missing.length > 0) {
    throw new Error('code-server was installed but its install scripts did not (all) run; missing:\n  ' +
      `${missing.join('\n  ')}\nSee ${path.join(INSTALL_DIR, 'install.log')} ` +
      '(look for npm "install-scripts" notices).');
  }
}

function writeMarker(seconds) {
  const marker = { codeServer: CODE_SERVER_VERSION, vscode: VSCODE_VERSION, node: process.version,
    installedAt: new Date().toISOString(), seconds };
  fs.writeFileSync(MARKER_FILE, `${JSON.stringify(marker, null, 2)}\n`);
}

async function installCodeServer() {
  checkNodeVersion();
  checkDebianPackages();
  const started = Date.now();
  log(`installing code-server ${CODE_SERVER_VERSION} (VS Code ${VSCODE_VERSION}) into ${INSTALL_DIR}`);
  // A leftover without the marker is a failed or interrupted install: start clean.
  fs.rmSync(INSTALL_DIR, { recursive: true, force: true });
  fs.mkdirSync(INSTALL_DIR, { recursive: true });
  prepareRipgrepCache();
  await runNpmInstall();
  verifyPostinstallRan();
  const seconds = Math.round((Date.now() - started) / 100) / 10;
  writeMarker(seconds);
  log(`code-server ${CODE_SERVER_VERSION} installed in ${seconds} s`);
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

function isProcessAlive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error.code === 'EPERM';
  }
}

/** A lock nobody holds: its owner died, or it never wrote its pid and the lock is not brand new. */
function isLockStale() {
  try {
    const pid = Number(fs.readFileSync(path.join(LOCK_DIR, 'pid'), 'utf8'));
    return !isProcessAlive(pid);
  } catch {
    try {
      return Date.now() - fs.statSync(LOCK_DIR).mtimeMs > STALE_LOCK_MS;
    } catch {
      return true; // released meanwhile
    }
  }
}

async function acquireInstallLock() {
  fs.mkdirSync(path.dirname(LOCK_DIR), { recursive: true });
  let announced = false;
  for (;;) {
    try {
      fs.mkdirSync(LOCK_DIR); // atomic: exactly one process succeeds
      fs.writeFileSync(path.join(LOCK_DIR, 'pid'), String(process.pid));
      return;
    } catch (error) {
      if (error.code !== 'EEXIST') throw error;
    }
    if (isLockStale()) {
      fs.rmSync(LOCK_DIR, { recursive: true, force: true });
      continue;
    }
    if (!announced) log(`waiting for another process that is installing code-server (${LOCK_DIR})`);
    announced = true;
    await sleep(1_000);
  }
}

/** Installs code-server when missing; resolves to the path of its binary. */
async function ensureCodeServer() {
  if (isInstalled()) return CODE_SERVER_BIN;
  await acquireInstallLock();
  try {
    if (!isInstalled()) await installCodeServer(); // another process may have finished it meanwhile
  } finally {
    fs.rmSync(LOCK_DIR, { recursive: true, force: true });
  }
  return CODE_SERVER_BIN;
}

module.exports = { ensureCodeServer, CODE_SERVER_VERSION, VSCODE_VERSION, INSTALL_DIR, CODE_SERVER_BIN };

if (require.main === module) {
  const started = Date.now();
  ensureCodeServer().then(
    (bin) => log(`ready: ${bin} (${Date.now() - started} ms)`),
    (error) => {
      console.error(`[test-host] ${error.message}`);
      process.exitCode = 1;
    });
}
