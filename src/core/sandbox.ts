// Which OS sandbox hooks run in on this machine, and how one hook run is started inside it.
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { bwrapArgv, bwrapHost, withProtectedPaths } from './bwrap';
import { SANDBOX_EXEC, sandboxExecArgv } from './macosProfile';

/** What isolates hook processes on this machine; shown wherever the user decides to trust hooks. */
export type SandboxInfo =
  | { readonly name: 'bwrap' | 'sandbox-exec'; readonly available: true; readonly program: string; readonly description: string }
  | { readonly name: 'none'; readonly available: false; readonly description: string; readonly reason: string };

/** What one hook run may touch inside the sandbox. */
export interface SandboxPolicy {
  /** The workspace root: writable, and the working folder. */
  readonly root: string;
  /** A fresh folder for this run that holds the input file: writable, and the hook's TMPDIR. */
  readonly tempDir: string;
  readonly network: boolean;
}

/** How to start one hook: the executor's argv, variables to add to the hook's environment, and open files to hand it. */
export interface SandboxedCommand {
  readonly argv: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  /** For the child from fd 3 on (see ExecRequest.fds). */
  readonly fds: readonly number[];
}

export interface DetectSandboxOptions {
  /** Where PATH is read, at detection time. Default: this process's environment. */
  readonly env?: NodeJS.ProcessEnv;
  readonly platform?: NodeJS.Platform;
  /** Where a bwrap on PATH is trusted. Default: SYSTEM_DIRS; tests point it at a fake. */
  readonly systemDirs?: readonly string[];
}

/**
 * Folders only an administrator writes to: a `bwrap` earlier on PATH (a repository's
 * node_modules/.bin through direnv) would fake the sandbox and still satisfy `requireSandbox`.
 */
export const SYSTEM_DIRS: readonly string[] = ['/usr/bin', '/bin', '/usr/local/bin', '/usr/sbin', '/sbin'];

const LIMITS = 'hooks can write only in the workspace and a private temp folder, and reach the network only with "network": true.';
const PROBE_TIMEOUT_MS = 10_000;

const detected = new Map<string, SandboxInfo>();

/** Detected once per process for each platform and PATH: a probe run costs a few milliseconds. */
export function detectSandbox(options: DetectSandboxOptions = {}): SandboxInfo {
  const env = options.env ?? process.env;
  const platform = options.platform ?? process.platform;
  const systemDirs = options.systemDirs ?? SYSTEM_DIRS;
  const key = `${platform}\0${env.PATH ?? ''}\0${systemDirs.join(path.delimiter)}`;
  let info = detected.get(key);
  if (!info) {
    info = detect(platform, env, systemDirs);
    detected.set(key, info);
  }
  return info;
}

/** `OS sandbox: …` or `No OS sandbox: …`, the line the CLI, the consent text and the tree show. */
export function sandboxLine(info: SandboxInfo): string {
  return `${info.available ? 'OS sandbox' : 'No OS sandbox'}: ${info.description}`;
}

/** Starts what `start` starts with the command for one hook; open files it hands over are closed once it has started. */
export function withSandboxedCommand<T>(info: SandboxInfo, command: string, policy: SandboxPolicy, start: (sandboxed: SandboxedCommand) => T): T {
  switch (info.name) {
    case 'bwrap':
      return withProtectedPaths(policy.root, ({ binds, fds }) =>
        start({ argv: bwrapArgv(info.program, command, policy, bwrapHost(), binds), env: { TMPDIR: policy.tempDir }, fds }));
    case 'sandbox-exec':
      return start({ argv: sandboxExecArgv(command, policy), env: { TMPDIR: policy.tempDir }, fds: [] });
    case 'none':
      return start({ argv: ['/bin/sh', '-c', command], env: {}, fds: [] });
  }
}

function detect(platform: NodeJS.Platform, env: NodeJS.ProcessEnv, systemDirs: readonly string[]): SandboxInfo {
  switch (platform) {
    case 'linux': {
      const program = findOnPath('bwrap', env.PATH ?? '', systemDirs);
      const elsewhere = program ? undefined : findOnPath('bwrap', env.PATH ?? '');
      if (elsewhere) return none(`the only bwrap on PATH is ${elsewhere}, outside the system folders (${systemDirs.join(', ')}) where Garuda trusts it`);
      if (!program) return none('bwrap (bubblewrap) was not found on PATH; install it, e.g. `apt-get install bubblewrap`');
      return probe({ name: 'bwrap', available: true, program, description: `bubblewrap (${program}): ${LIMITS}` }, env);
    }
    case 'darwin':
      if (!fs.existsSync(SANDBOX_EXEC)) return none(`${SANDBOX_EXEC} is missing`);
      return probe({ name: 'sandbox-exec', available: true, program: SANDBOX_EXEC, description: `macOS sandbox-exec: ${LIMITS}` }, env);
    case 'win32':
      return none('Garuda has no OS sandbox for Windows');
    default:
      return none(`Garuda has no OS sandbox for ${platform}`);
  }
}

/**
 * A sandbox program that is installed but cannot work here (no user namespaces, a container
 * without the rights to mount) would fail every hook: it is found out once, with its own words.
 */
function probe(info: SandboxInfo, env: NodeJS.ProcessEnv): SandboxInfo {
  const dir = fs.realpathSync(os.tmpdir());
  const result = withSandboxedCommand(info, 'exit 0', { root: dir, tempDir: dir, network: false }, ({ argv, fds }) =>
    spawnSync(argv[0]!, argv.slice(1), { env, stdio: ['ignore', 'ignore', 'pipe', ...fds], timeout: PROBE_TIMEOUT_MS, encoding: 'utf8' }));
  if (result.status === 0) return info;
  const said = result.error?.message ?? result.stderr.trim().split('\n')[0] ?? '';
  const status = result.signal ? `killed by ${result.signal}` : `exit ${result.status}`;
  return none(`${info.available ? info.program : info.name} is installed but cannot start a sandbox here (${status}${said ? `: ${said}` : ''})`);
}

function none(reason: string): SandboxInfo {
  return { name: 'none', available: false, description: `hooks run with your full user permissions, because ${reason}.`, reason };
}

/**
 * Only absolute PATH entries: an empty or relative one would mean whatever folder we are in. With
 * `systemDirs`, only those folders.
 */
function findOnPath(name: string, searchPath: string, systemDirs?: readonly string[]): string | undefined {
  for (const entry of searchPath.split(path.delimiter)) {
    if (!path.isAbsolute(entry)) continue;
    const dir = path.normalize(entry).replace(/(.)\/+$/, '$1');
    if (systemDirs && !systemDirs.includes(dir)) continue;
    const candidate = path.join(dir, name);
    try {
      fs.accessSync(candidate, fs.constants.X_OK);
      if (fs.statSync(candidate).isFile()) return candidate;
    } catch {
      // Not here.
    }
  }
  return undefined;
}
