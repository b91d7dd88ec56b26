// The process inside a warm sandbox (see warmSandbox.ts): it starts the hooks the host sends, each
// with a fresh temp folder and input file in the sandbox's private /tmp, and reports how they ended.
// Whenever no hook is running it puts the sandbox back as bwrap made it, so a run never sees what an
// earlier one left: no process, no file in /tmp.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { runCommand } from './executor';
import { createRunFolder } from './runFolder';
import type { WorkerReply, WorkerRequest } from './warmSandbox';

/** The workspace root, bound into the sandbox: every hook's working folder. */
const root = process.argv[1]!;
let running = 0;
/** Rounds of killing what is left before giving up on this sandbox (a fork bomb, say). */
const TIDY_ROUNDS = 20;

process.on('message', (request: WorkerRequest) => void run(request));
// The host closed the channel (idle, or exiting): bwrap ends the namespace with this process.
process.on('disconnect', () => process.exit(0));
send({ type: 'ready' });

async function run(request: WorkerRequest): Promise<void> {
  running++;
  let reply: WorkerReply;
  let folder: ReturnType<typeof createRunFolder> | undefined;
  try {
    folder = createRunFolder(request.stdin, true);
    const result = await runCommand({
      command: request.command,
      cwd: root,
      env: { ...request.env, TMPDIR: folder.dir, GARUDA_HOOK_INPUT: folder.inputFile },
      stdin: request.stdin,
      timeoutMs: request.timeoutMs,
      killGraceMs: request.killGraceMs,
      outputLimit: request.outputLimit,
    });
    reply = { type: 'result', id: request.id, result };
  } catch (error) {
    reply = { type: 'failed', id: request.id, message: (error as Error).message };
  } finally {
    await folder?.remove();
    running--;
  }
  // Tidied before the reply: when the host learns that a hook ended, what it left is gone too.
  if (running === 0 && !tidy()) {
    send({ ...reply, retiring: true }, () => process.exit(1));
    return;
  }
  send(reply);
}

function send(reply: WorkerReply, then?: () => void): void {
  process.send?.(reply, undefined, {}, () => then?.());
}

/** False when the sandbox could not be put back in order: the worker then ends, and with it the sandbox. */
function tidy(): boolean {
  try {
    for (let round = 0; round < TIDY_ROUNDS; round++) {
      const left = leftoverProcesses();
      if (left.length === 0) {
        const mounts = mountPoints();
        emptyTmp('/tmp', mounts);
        // A hook that moved a folder on the way to the root has left no root to run the next hook in.
        return mounts.includes(root);
      }
      for (const pid of left) kill(pid);
    }
  } catch {
    // A file a hook made impossible to remove, say.
  }
  return false;
}

/** Every live process in this PID namespace but bwrap's (pid 1) and this one. */
function leftoverProcesses(): number[] {
  return fs.readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .map(Number)
    .filter((pid) => pid !== 1 && pid !== process.pid && !isZombie(pid));
}

function isZombie(pid: number): boolean {
  try {
    // The state follows the parenthesised command name, which may itself hold spaces or parentheses.
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) === 'Z';
  } catch {
    return true;
  }
}

function kill(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // Gone already.
  }
}

/** Where things are mounted in this namespace now (a hook may have renamed a folder on the way to one). */
function mountPoints(): string[] {
  return fs.readFileSync('/proc/self/mountinfo', 'utf8').split('\n').flatMap((line) => {
    const mountPoint = line.split(' ')[4];
    return mountPoint ? [mountPoint.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(parseInt(octal, 8)))] : [];
  });
}

/**
 * Removes everything in the private /tmp but the mount points in it (the root, when it lives under
 * /tmp) and the folders leading to them, so a removal never reaches into the workspace.
 */
function emptyTmp(dir: string, mounts: readonly string[]): void {
  for (const name of fs.readdirSync(dir)) {
    const entry = path.join(dir, name);
    if (mounts.includes(entry)) continue;
    const leadsToMount = mounts.some((mount) => mount.startsWith(`${entry}/`));
    if (leadsToMount && fs.lstatSync(entry).isDirectory()) emptyTmp(entry, mounts);
    else fs.rmSync(entry, { recursive: true, force: true });
  }
}
