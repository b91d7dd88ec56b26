// The Linux sandbox: bubblewrap's arguments for a hook run, a warm sandbox and a hook nested in one,
// and the protected paths of a root, opened for them.
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
export function bwrapArgv(program: string, command: string, policy: SandboxPolicy, host: BwrapHost, binds: readonly ProtectedBind[]): string[] {
  return [...sandboxArgs(program, policy, host, binds, policy.tempDir), ...DROP_ALL_CAPABILITIES, '--', '/bin/sh', '-c', command];
}

/**
 * A warm sandbox (warmSandbox.ts), up to the program it runs: what a sandbox per run has, without a
 * temp folder or protected binds, which each hook's nested sandbox makes (`bwrapNestedArgv`). Its
 * `--chdir` into the root also pins the root: a folder made in its place later is another one, which
 * gets another sandbox.
 */
export function bwrapWarmArgv(program: string, limits: Omit<SandboxPolicy, 'tempDir'>, host: BwrapHost): string[] {
  return [...sandboxArgs(program, limits, host, []), '--'];
}

/**
 * One hook inside a warm sandbox, in a sandbox of its own nested in it: what each run gets fresh
 * (hookLayer) is fresh here too, so a hook can neither see the worker nor leave anything for the
 * next hook. The read-only system, the read-only /dev and the network are the warm sandbox's, which
 * is what makes this cheaper than a sandbox per run.
 */
export function bwrapNestedArgv(program: string, command: string, policy: SandboxPolicy, host: BwrapHost, binds: readonly ProtectedBind[]): string[] {
  return [program, '--dev-bind', '/', '/', ...hookLayer(policy, host, [], binds, policy.tempDir), ...DROP_ALL_CAPABILITIES, '--', '/bin/sh', '-c', command];
}

/**
 * Only for the sandbox a hook runs in: root keeps every capability in a bwrap sandbox otherwise (and
 * could unmount what hides the host). A warm sandbox's worker keeps them, as root, to nest sandboxes.
 */
const DROP_ALL_CAPABILITIES = ['--cap-drop', 'ALL'];

function sandboxArgs(program: string, limits: Omit<SandboxPolicy, 'tempDir'>, host: BwrapHost, binds: readonly ProtectedBind[], tempDir?: string): string[] {
  return [
    program,
    '--ro-bind', '/', '/',
    // Read-only, so that nothing a hook leaves in /dev reaches the next hook of a warm sandbox.
    ...hookLayer(limits, host, ['--dev', '/dev', '--remount-ro', '/dev'], binds, tempDir),
    ...(limits.network ? [] : ['--unshare-net']),
  ];
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
function hookLayer(limits: Omit<SandboxPolicy, 'tempDir'>, host: BwrapHost, dev: readonly string[], binds: readonly ProtectedBind[], tempDir: string | undefined): string[] {
  const emptied = emptiedDirs(limits.network, host);
  const fresh = [...dev, '--proc', '/proc', '--tmpfs', '/dev/shm', '--tmpfs', '/tmp', ...emptied.flatMap((dir) => ['--tmpfs', dir])];
  // A temp folder in the root is writable with it.
  const temp = tempDir !== undefined && !isUnder(tempDir, limits.root) ? ['--bind', tempDir, tempDir] : [];
  // The protected paths after the root, which would otherwise make them writable again.
  const root = ['--bind', limits.root, limits.root, ...binds.flatMap(({ fd, path: inside }) => ['--ro-bind-fd', String(fd), inside])];
  // Mounted before what is made fresh, as a second line behind --ro-bind-fd: were a protected path
  // swapped for a symlink (`.claude -> ../../tmp`) that bwrap followed, the fresh mounts would cover
  // whatever it landed on. A root inside a folder that is made fresh (/tmp) can only be mounted after it.
  const inFresh = ['/dev', '/proc', '/tmp', ...emptied].some((dir) => isUnder(limits.root, dir));
  return [
    ...(inFresh ? [...fresh, ...temp, ...root] : [...root, ...fresh, ...temp]),
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

/** A protected path, opened, and the descriptor number bwrap gets it as. */
export interface ProtectedBind {
  readonly path: string;
  readonly fd: number;
}

/** The protected paths of a root, opened for one sandbox: `fds` go to bwrap as fd 3, 4, … (ExecRequest.fds). */
export interface OpenProtectedPaths {
  readonly binds: readonly ProtectedBind[];
  readonly fds: readonly number[];
}

/** Linux's O_PATH: a handle on the path itself, which never blocks (a FIFO) and reads nothing. */
const O_PATH = 0o10000000;
/** What a path that is not there, or not a folder on the way, gives. */
const ABSENT = new Set(['ENOENT', 'ENOTDIR']);

/**
 * Starts what `start` starts with the PROTECTED_IN_ROOT paths of `root` open, and closes them once it
 * has started (the child has its own copies). Only those that are there, as real folders and files:
 * a symlinked one is not protected, as a missing one is not. bwrap binds the opened file itself
 * (`--ro-bind-fd`) and refuses to start if the path no longer leads to it when it mounts: a hook
 * running at the same time cannot swap a protected folder for a symlink (`.envrc -> ../../tmp`, which
 * bwrap would follow inside the sandbox) to put a host folder over the sandbox's.
 *
 * `root` is a real, absolute path (see canonicalRoot): the opened paths are checked against it.
 */
export function withProtectedPaths<T>(root: string, start: (opened: OpenProtectedPaths) => T): T {
  const binds: ProtectedBind[] = [];
  const fds: number[] = [];
  try {
    for (const name of PROTECTED_IN_ROOT) {
      const inside = path.join(root, name);
      let fd: number;
      try {
        fd = fs.openSync(inside, O_PATH | fs.constants.O_NOFOLLOW);
      } catch (error) {
        // Anything else (no descriptors left, say) must not quietly mean "nothing to protect".
        if (ABSENT.has((error as NodeJS.ErrnoException).code ?? '')) continue;
        throw error;
      }
      fds.push(fd);
      // A symlink itself, or one on the way (.github of .github/hooks), leads elsewhere.
      if (fs.fstatSync(fd).isSymbolicLink() || fs.readlinkSync(`/proc/self/fd/${fd}`) !== inside) {
        fs.closeSync(fds.pop()!);
        continue;
      }
      binds.push({ path: inside, fd: 3 + binds.length });
    }
    return start({ binds, fds });
  } finally {
    fds.forEach((fd) => fs.closeSync(fd));
  }
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
