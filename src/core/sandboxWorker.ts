// The process inside a warm sandbox (see warmSandbox.ts): it starts each hook the host sends in a
// sandbox of its own nested in this one (bwrapNestedArgv), with a fresh temp folder and input file,
// and reports how it ended. Hooks cannot see this process: they have PID namespaces of their own.
import { runCommand } from './executor';
import { bwrapNestedArgv, withProtectedPaths, type ProtectedBind } from './bwrap';
import { createRunFolder } from './runFolder';
import type { WorkerReply, WorkerRequest, WorkerSetup } from './warmSandbox';

const setup: WorkerSetup = JSON.parse(process.argv[1]!);

process.on('message', (request: WorkerRequest) => void run(request));
// The host closed the channel (idle, or exiting): bwrap ends the namespace with this process.
process.on('disconnect', () => process.exit(0));
void start();

/**
 * Ready once a nested sandbox is known to work here (user namespaces may be turned off inside): one
 * with nothing to bind, whose temp folder is the root (which needs no bind of its own). The host
 * gives up on a worker that is not ready within its own start timeout.
 */
async function start(): Promise<void> {
  const probe = await runCommand({ command: 'exit 0', argv: nestedArgv('exit 0', setup.root, []), cwd: setup.root, env: {}, stdin: '', timeoutMs: 60_000 });
  const said = probe.spawnError ?? probe.stderr.trim().split('\n')[0];
  send(probe.exitCode === 0 ? { type: 'ready' } : { type: 'unavailable', reason: said || `a nested bwrap ended with ${probe.signal ?? `exit ${probe.exitCode}`}` });
}

async function run(request: WorkerRequest): Promise<void> {
  let folder: ReturnType<typeof createRunFolder> | undefined;
  try {
    // In this sandbox's /tmp, bound into the hook's.
    folder = createRunFolder(request.stdin, true);
    const { dir, inputFile } = folder;
    const running = withProtectedPaths(setup.root, ({ binds, fds }) => runCommand({
      command: request.command,
      argv: nestedArgv(request.command, dir, binds),
      cwd: setup.root,
      env: { ...request.env, TMPDIR: dir, GARUDA_HOOK_INPUT: inputFile },
      stdin: request.stdin,
      timeoutMs: request.timeoutMs,
      fds,
    }));
    send({ type: 'result', id: request.id, result: await running });
  } catch (error) {
    send({ type: 'failed', id: request.id, message: (error as Error).message });
  }
  // After the reply: what a hook left in its temp folder is not part of its time.
  await folder?.remove();
}

function nestedArgv(command: string, tempDir: string, binds: readonly ProtectedBind[]): string[] {
  return bwrapNestedArgv(setup.program, command, { root: setup.root, tempDir, network: setup.network }, setup.host, binds);
}

function send(reply: WorkerReply): void {
  process.send?.(reply);
}
