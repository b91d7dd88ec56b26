// The macOS sandbox: a sandbox-exec (Seatbelt) profile with the same policy as the Linux one.
import type { SandboxPolicy } from './sandbox';

/** Only the system's own copy: a `sandbox-exec` earlier on PATH could be anything. */
export const SANDBOX_EXEC = '/usr/bin/sandbox-exec';

/**
 * Deny by default; read everywhere; write only under the workspace root and the run's temp folder
 * (passed as the ROOT and TEMP parameters, so no path is ever quoted into the profile text); the
 * network only when the hook asks for it.
 */
export function macosProfile(network: boolean): string {
  const lines = [
    '(version 1)',
    '(deny default)',
    '; Hooks start other programs, and every child inherits this profile.',
    '(allow process-exec process-fork)',
    '(allow signal (target same-sandbox))',
    '(allow process-info* (target same-sandbox))',
    '(allow sysctl-read)',
    '(allow user-preference-read)',
    '(allow ipc-posix-shm ipc-posix-sem)',
    '; User and group look-ups, logging and the per-user temp folder go through these services.',
    '(allow mach-lookup',
    '  (global-name "com.apple.system.opendirectoryd.libinfo")',
    '  (global-name "com.apple.system.logger")',
    '  (global-name "com.apple.system.notification_center")',
    '  (global-name "com.apple.logd")',
    '  (global-name "com.apple.bsd.dirhelper"))',
    '(allow file-read*)',
    '(allow file-write*',
    '  (subpath (param "ROOT"))',
    '  (subpath (param "TEMP"))',
    '  (literal "/dev/null")',
    '  (literal "/dev/zero")',
    '  (regex #"^/dev/fd/[0-9]+$"))',
  ];
  if (network) {
    lines.push(
      '; "network": true; name resolution, certificate checks and proxy settings are services too.',
      '(allow network*)',
      '(allow mach-lookup',
      '  (global-name "com.apple.dnssd.service")',
      '  (global-name "com.apple.trustd.agent")',
      '  (global-name "com.apple.SystemConfiguration.configd"))',
    );
  }
  return lines.join('\n') + '\n';
}

export function sandboxExecArgv(command: string, policy: SandboxPolicy): string[] {
  return [
    SANDBOX_EXEC,
    '-p', macosProfile(policy.network),
    '-D', `ROOT=${policy.root}`,
    '-D', `TEMP=${policy.tempDir}`,
    '/bin/sh', '-c', command,
  ];
}
