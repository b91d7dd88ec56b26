import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import type { Readable } from 'node:stream';
import { onProcessExit } from './processExit';

/** One command to run as a hook. */
export interface ExecRequest {
  readonly command: string;
  readonly cwd: string;
  /** The whole environment: nothing is inherited implicitly. */
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly stdin: string;
  readonly timeoutMs: number;
  /** Bytes kept per stream; the rest is read and dropped so the hook never blocks on a full pipe. */
  readonly outputLimit?: number;
  /** Between TERM and KILL when the hook overruns its time. */
  readonly killGraceMs?: number;
  /** The program and arguments to run instead of `sh -c command`, e.g. inside a sandbox. */
  readonly argv?: readonly string[];
  /** Ends the whole process group early, as a timeout does (an editor's cancel button). */
  readonly signal?: AbortSignal;
  /** Open files the process gets as fd 3, 4, …; the caller closes them once it has started. */
  readonly fds?: readonly number[];
}

export interface ExecResult {
  readonly exitCode: number | null;
  readonly signal: string | null;
  readonly timedOut: boolean;
  /** Set when `signal` aborted the command. */
  readonly cancelled?: boolean;
  readonly stdout: string;
  readonly stderr: string;
  readonly stdoutTruncated: boolean;
  readonly stderrTruncated: boolean;
  readonly durationMs: number;
  /** Set when the process could not be started at all. */
  readonly spawnError?: string;
}

/** An editor's environment as a terminal gets it: without the flag that turns Electron apps into Node. */
export function terminalEnv(env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const { ELECTRON_RUN_AS_NODE: _, ...rest } = env;
  return rest;
}

export const OUTPUT_LIMIT_BYTES = 8000;
export const KILL_GRACE_MS = 1000;
/** After the hook exits, how long its output may still arrive before leftover children are killed. */
const DRAIN_MS = 50;

const liveGroups = new Set<number>();
// A hook's process group must not outlive the CLI or the extension host that started it.
onProcessExit(() => liveGroups.forEach((pid) => killGroup(pid, 'SIGKILL')));

export async function runCommand(request: ExecRequest): Promise<ExecResult> {
  const limit = request.outputLimit ?? OUTPUT_LIMIT_BYTES;
  const [file, ...args] = request.argv ?? ['/bin/sh', '-c', request.command];
  // Start counting before spawning: start-up cost is part of what a hook costs.
  const started = performance.now();
  // Node's own spawn: a process wrapper such as execa costs more than starting `sh` itself.
  const subprocess = spawn(file!, args, {
    cwd: request.cwd,
    env: request.env,
    // Pipes for the standard streams (which the cast below relies on), then the caller's open files.
    stdio: ['pipe', 'pipe', 'pipe', ...(request.fds ?? [])],
    // Its own process group, so a timeout reaches grandchildren too.
    detached: true,
    windowsHide: true,
  }) as ChildProcessWithoutNullStreams;
  // A hook may exit without reading its input: the closed pipe is not an error.
  subprocess.stdin.once('error', () => undefined);
  subprocess.stdin.end(request.stdin);
  const stdout = captureStream(subprocess.stdout, limit);
  const stderr = captureStream(subprocess.stderr, limit);
  const pid = subprocess.pid;
  if (pid !== undefined) liveGroups.add(pid);

  let timedOut = false;
  let graceTimer: NodeJS.Timeout | undefined;
  const terminate = () => {
    if (pid === undefined || graceTimer !== undefined) return;
    killGroup(pid, 'SIGTERM');
    graceTimer = setTimeout(() => killGroup(pid, 'SIGKILL'), request.killGraceMs ?? KILL_GRACE_MS);
  };
  const timeoutTimer = setTimeout(() => {
    timedOut = true;
    terminate();
  }, request.timeoutMs);
  if (request.signal?.aborted) terminate();
  request.signal?.addEventListener('abort', terminate, { once: true });

  let spawnFailure: Error | undefined;
  const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) => {
    subprocess.once('exit', (code, signal) => resolve({ code, signal }));
    // Before an exit, an error means the process never started.
    subprocess.on('error', (error) => {
      spawnFailure ??= error;
      resolve({ code: null, signal: null });
    });
  });
  const { code, signal } = await exited;
  const durationMs = performance.now() - started;
  clearTimeout(timeoutTimer);
  clearTimeout(graceTimer);
  request.signal?.removeEventListener('abort', terminate);

  // A background child may still hold the pipes open: give the output a moment, then end the group.
  await Promise.race([Promise.all([stdout.done, stderr.done]), delay(DRAIN_MS)]);
  if (pid !== undefined) {
    killGroup(pid, 'SIGKILL');
    liveGroups.delete(pid);
  }
  subprocess.stdout.destroy();
  subprocess.stderr.destroy();
  const spawnError = code === null && signal === null && !timedOut ? spawnFailure?.message : undefined;

  return {
    exitCode: code,
    signal,
    timedOut,
    ...(request.signal?.aborted && !timedOut && { cancelled: true }),
    stdout: stdout.text(),
    stderr: stderr.text(),
    stdoutTruncated: stdout.truncated(),
    stderrTruncated: stderr.truncated(),
    durationMs,
    ...(spawnError !== undefined && { spawnError }),
  };
}

function captureStream(stream: Readable | null | undefined, limit: number) {
  const chunks: Buffer[] = [];
  let kept = 0;
  let dropped = 0;
  let ended = false;
  const done = new Promise<void>((resolve) => {
    if (!stream) return resolve();
    stream.on('data', (chunk: Buffer) => {
      const room = limit - kept;
      if (room > 0) {
        chunks.push(chunk.subarray(0, room));
        kept += Math.min(room, chunk.length);
      }
      dropped += Math.max(0, chunk.length - Math.max(room, 0));
    });
    stream.once('close', resolve);
    stream.once('end', resolve);
    stream.once('error', () => resolve());
  }).then(() => {
    ended = true;
  });
  return {
    done,
    text: () => Buffer.concat(chunks).toString('utf8'),
    // Output still coming when the group was ended is cut short too: a late JSON deny must not pass.
    truncated: () => dropped > 0 || !ended,
  };
}

export function killGroup(pid: number, signal: NodeJS.Signals): void {
  // Every run ends its group, which is usually gone already: the error then needs no stack, whose
  // capture through the async call chain costs more than the kill itself.
  const stackTraceLimit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    process.kill(-pid, signal);
  } catch {
    // Already gone.
  } finally {
    Error.stackTraceLimit = stackTraceLimit;
  }
}

const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
