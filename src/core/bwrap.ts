// The Linux sandbox: bubblewrap's arguments for one hook run.
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { SandboxPolicy } from './sandbox';

/**
 * Folders in the workspace that editors, git and agents run commands from: a hook that could write
 * them would run code outside the sandbox later (a git hook, core.fsmonitor, a VS Code task, another
 * agent's hooks). They are read-only inside the otherwise writable root.
 */
export const PROTECTED_IN_ROOT = [
  '.git', '.vscode', '.garuda', '.claude', '.cursor', '.codex', '.gemini', '.windsurf', '.kiro', '.clinerules', '.idea',
  '.github/hooks', '.husky', '.envrc', '.devcontainer',
] as const;

/** Variables that lead to the user's agents and buses (sockets that are hidden in the sandbox anyway). */
const UNSET = ['SSH_AUTH_SOCK', 'DBUS_SESSION_BUS_ADDRESS', 'DBUS_SYSTEM_BUS_ADDRESS'] as const;

/** What the host has where Unix sockets live, read when a hook starts. */
export interface BwrapHost {
  /** /run is a folder of its own (not a symlink, which must not be mounted over). */
  readonly run: boolean;
  /** /var/tmp is a folder of its own. */
  readonly varTmp: boolean;
  /** $XDG_RUNTIME_DIR, a real path, when it is set and a folder. */
  readonly runtimeDir?: string;
}

export function bwrapHost(env: NodeJS.ProcessEnv = process.env): BwrapHost {
  const runtimeDir = env.XDG_RUNTIME_DIR && path.isAbsolute(env.XDG_RUNTIME_DIR) ? realDir(env.XDG_RUNTIME_DIR) : undefined;
  return { run: isDir('/run'), varTmp: isDir('/var/tmp'), ...(runtimeDir !== undefined && { runtimeDir }) };
}

/**
 * `program` runs `sh -c command` with the whole filesystem read-only except the workspace root and
 * the run's temp folder, a private /tmp, fresh /dev and /proc, its own PID and IPC namespaces and,
 * unless the hook asks for network, its own network namespace (only a loopback of its own, so not
 * even servers on the host's 127.0.0.1 are reachable).
 */
export function bwrapArgv(program: string, command: string, policy: SandboxPolicy, host: BwrapHost = bwrapHost()): string[] {
  return [...bwrapSandboxArgv(program, policy, host, policy.tempDir), '/bin/sh', '-c', command];
}

/**
 * bwrap's arguments up to the program it runs (ending with `--`): for one run with its `tempDir`, or
 * for a warm sandbox (warmSandbox.ts), whose worker starts each hook with `bwrapNestedArgv`.
 */
export function bwrapSandboxArgv(program: string, limits: Omit<SandboxPolicy, 'tempDir'>, host: BwrapHost, tempDir?: string): string[] {
  return [
    program,
    '--ro-bind', '/', '/',
    '--dev', '/dev',
    ...hookLayer(limits, host, tempDir),
    ...(limits.network ? [] : ['--unshare-net']),
    '--',
  ];
}

/**
 * One hook inside a warm sandbox: a sandbox of its own in it (PID and IPC namespaces, /proc, /tmp,
 * /dev/shm and the emptied folders fresh, protected folders bound as they are now), so it can
 * neither see the worker nor leave anything for the next hook. The network and the read-only system
 * are the warm sandbox's, which is what makes starting it cheaper than a sandbox per run.
 */
export function bwrapNestedArgv(program: string, command: string, policy: SandboxPolicy, host: BwrapHost): string[] {
  return [program, '--dev-bind', '/', '/', '--tmpfs', '/dev/shm', ...hookLayer(policy, host, policy.tempDir), '--', '/bin/sh', '-c', command];
}

/**
 * What each hook gets fresh. A network namespace does not cover Unix sockets in the filesystem (the
 * session bus, whose `systemd-run --user` runs anything outside; docker.sock; ssh-agent): /var/tmp,
 * /run and $XDG_RUNTIME_DIR are empty instead. A hook with network keeps /run, where
 * /etc/resolv.conf often points (/run/systemd/resolve), but not a runtime folder of its own under it.
 *
 * No `--new-session`: the executor already starts the hook in a session of its own (no controlling
 * terminal to inject keystrokes into), and staying in bwrap's process group lets a timeout's TERM
 * reach the hook itself. Whatever remains dies with the namespace's pid 1 when bwrap is killed.
 */
function hookLayer(limits: Omit<SandboxPolicy, 'tempDir'>, host: BwrapHost, tempDir: string | undefined): string[] {
  return [
    '--proc', '/proc',
    // Before the binds: a root or temp folder under /tmp is then mounted inside the private /tmp.
    '--tmpfs', '/tmp',
    ...emptiedDirs(limits.network, host).flatMap((dir) => ['--tmpfs', dir]),
    '--bind', limits.root, limits.root,
    ...(tempDir !== undefined ? ['--bind', tempDir, tempDir] : []),
    // After the writable binds: a temp folder that is the root itself would otherwise bind it writable again.
    ...protectedPaths(limits.root).flatMap((inside) => ['--ro-bind-try', inside, inside]),
    ...UNSET.flatMap((name) => ['--unsetenv', name]),
    '--unshare-pid',
    '--unshare-ipc',
    '--die-with-parent',
    '--chdir', limits.root,
  ];
}

/** Folders mounted empty in the sandbox: where Unix sockets live. */
function emptiedDirs(network: boolean, host: BwrapHost): string[] {
  return [
    ...(host.run && !network ? ['/run'] : []),
    ...(host.varTmp ? ['/var/tmp'] : []),
    ...(host.runtimeDir !== undefined && host.runtimeDir !== '/' && !(host.run && !network && isUnder(host.runtimeDir, '/run')) ? [host.runtimeDir] : []),
  ];
}

/** The PROTECTED_IN_ROOT paths of `root`. */
function protectedPaths(root: string): string[] {
  return PROTECTED_IN_ROOT.map((name) => path.join(root, name));
}

function isDir(dir: string): boolean {
  try {
    return fs.lstatSync(dir).isDirectory();
  } catch {
    return false;
  }
}

function realDir(dir: string): string | undefined {
  try {
    const real = fs.realpathSync(dir);
    return fs.statSync(real).isDirectory() ? real : undefined;
  } catch {
    return undefined;
  }
}

function isUnder(dir: string, parent: string): boolean {
  return dir === parent || dir.startsWith(`${parent}/`);
}
