// The Linux sandbox: bubblewrap's arguments for one hook run.
import type { SandboxPolicy } from './sandbox';

/**
 * `program` runs `sh -c command` with the whole filesystem read-only except the workspace root and
 * the run's temp folder, a private /tmp, fresh /dev and /proc, its own PID and IPC namespaces and,
 * unless the hook asks for network, its own network namespace (only a loopback of its own, so not
 * even servers on the host's 127.0.0.1 are reachable).
 *
 * No `--new-session`: the executor already starts the hook in a session of its own (no controlling
 * terminal to inject keystrokes into), and staying in bwrap's process group lets a timeout's TERM
 * reach the hook itself. Whatever remains dies with the namespace's pid 1 when bwrap is killed.
 */
export function bwrapArgv(program: string, command: string, policy: SandboxPolicy): string[] {
  return [
    program,
    '--ro-bind', '/', '/',
    '--dev', '/dev',
    '--proc', '/proc',
    // Before the binds: a root or temp folder under /tmp is then mounted inside the private /tmp.
    '--tmpfs', '/tmp',
    '--bind', policy.root, policy.root,
    '--bind', policy.tempDir, policy.tempDir,
    '--unshare-pid',
    '--unshare-ipc',
    ...(policy.network ? [] : ['--unshare-net']),
    '--die-with-parent',
    '--chdir', policy.root,
    '--',
    '/bin/sh', '-c', command,
  ];
}
