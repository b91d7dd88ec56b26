// Warm bwrap sandboxes: one long-lived sandbox per workspace root, hook source and network setting,
// with a worker inside (sandboxWorker.ts) that starts each hook. Starting bwrap costs twice as much
// as starting the hook's shell (new namespaces, mounts, a second exec); a long-lived editor pays it
// once per sandbox instead of on every tool call.
//
// The isolation is bwrap's, as for a sandbox per run. What is shared: hooks of the same source that
// run at the same time see one PID namespace and /tmp. Whenever no hook runs, the worker kills what
// hooks left running and empties /tmp before it reports the last result.
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import { OUTPUT_LIMIT_BYTES, type ExecRequest, type ExecResult } from './executor';
import { bwrapHost, bwrapSandboxArgv, protectedPaths, withoutHostSockets } from './bwrap';
import { onProcessExit } from './processExit';

/** The worker's source, bundled by esbuild.js and run with `node -e`: nothing to find on disk. */
declare const GARUDA_SANDBOX_WORKER: string;

/** One hook to run; the worker is started with the workspace root as its only argument. */
export interface WorkerRequest {
  readonly id: number;
  readonly command: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly stdin: string;
  readonly timeoutMs: number;
  readonly killGraceMs?: number;
  readonly outputLimit?: number;
}

export type WorkerReply =
  | { readonly type: 'ready' }
  | { readonly type: 'result'; readonly id: number; readonly result: ExecResult; readonly retiring?: boolean }
  | { readonly type: 'failed'; readonly id: number; readonly message: string; readonly retiring?: boolean };

/** A hook run as the executor takes it, in the root: the sandbox decides the program and the folder. */
export type WarmRequest = Omit<ExecRequest, 'argv' | 'cwd' | 'signal'>;

/** Which sandbox a run belongs in: hooks of different sources never share one. */
export interface WarmSandboxKey {
  /** The bwrap to run (see detectSandbox). */
  readonly program: string;
  readonly root: string;
  readonly network: boolean;
  readonly source: string;
}

export interface WarmSandboxOptions {
  /** How long an unused sandbox stays up. */
  readonly idleMs?: number;
  /** A Node.js to run the worker with; default this process's own (an editor's Electron runs as Node). */
  readonly runtime?: string;
  /** How long the worker may take to start before its sandbox is given up. */
  readonly startTimeoutMs?: number;
  /** A sandbox that could not start, in words; runs then fall back to a sandbox per run. */
  readonly onProblem?: (message: string) => void;
}

const IDLE_MS = 60_000;
const START_TIMEOUT_MS = 10_000;
/** Beyond a hook's timeout and kill grace: a worker that has not answered by then is ended. */
const BACKSTOP_MS = 5_000;
const KILL_GRACE_MS = 1_000;
const STDERR_KEPT = 2_000;

const liveSandboxes = new Set<number>();
onProcessExit(() => liveSandboxes.forEach((pid) => killGroup(pid)));

export class WarmSandboxes {
  private readonly sandboxes = new Map<string, WarmSandbox>();
  private unavailable = false;

  constructor(private readonly options: WarmSandboxOptions = {}) {}

  /** Sandboxes up now. */
  get size(): number {
    return this.sandboxes.size;
  }

  /**
   * Runs one hook in the warm sandbox for `key`, started on first use. Undefined when the worker
   * cannot start here (reported once through onProblem): the caller then runs the hook in a sandbox
   * of its own.
   */
  async run(key: WarmSandboxKey, request: WarmRequest): Promise<ExecResult | undefined> {
    // Start-up is part of what the run costs, the worker's too.
    const started = performance.now();
    if (this.unavailable) return undefined;
    const id = sandboxIdentity(key);
    // A root that is gone fails in a sandbox of its own, with the usual words.
    if (id === undefined) return undefined;
    let sandbox = this.sandboxes.get(id);
    if (!sandbox) {
      sandbox = new WarmSandbox(this.options, key, () => {
        if (this.sandboxes.get(id) === sandbox) this.sandboxes.delete(id);
      });
      this.sandboxes.set(id, sandbox);
    }
    const ready = await sandbox.ready;
    if (ready !== true) {
      if (!this.unavailable) this.options.onProblem?.(`The warm hook sandbox could not start (${ready}); each hook now starts a sandbox of its own.`);
      this.unavailable = true;
      return undefined;
    }
    return sandbox.run(request, started);
  }

  dispose(): void {
    this.sandboxes.forEach((sandbox) => sandbox.close());
    this.sandboxes.clear();
  }
}

/**
 * What the sandbox was built from: a protected folder that appears, is replaced or vanishes after the
 * sandbox started (`git init`, say) would not be read-only in it, so it then gets a new sandbox.
 */
function sandboxIdentity(key: WarmSandboxKey): string | undefined {
  if (!fs.statSync(key.root, { throwIfNoEntry: false })?.isDirectory()) return undefined;
  const identity = [key.root, ...protectedPaths(key.root)].map((file) => {
    const stat = fs.lstatSync(file, { throwIfNoEntry: false });
    return stat ? `${stat.dev}:${stat.ino}` : '-';
  });
  return JSON.stringify([key.program, key.source, key.root, key.network, bwrapHost(), identity]);
}

class WarmSandbox {
  /** True once the worker is ready, or why it could not start. */
  readonly ready: Promise<true | string>;
  private readonly child: ChildProcess;
  private readonly pending = new Map<number, { request: WarmRequest; resolve: (result: ExecResult) => void }>();
  private nextId = 0;
  private stderr = '';
  private idleTimer: NodeJS.Timeout | undefined;
  private ended: string | undefined;

  constructor(private readonly options: WarmSandboxOptions, key: WarmSandboxKey, private readonly onEnd: () => void) {
    const host = bwrapHost();
    const [program, ...args] = [
      ...bwrapSandboxArgv(key.program, { root: key.root, writable: [key.root], network: key.network }, host),
      options.runtime ?? process.execPath, '-e', GARUDA_SANDBOX_WORKER, key.root,
    ];
    this.child = spawn(program!, args, {
      // Only what the worker needs: each hook gets its whole environment with its request.
      env: { ELECTRON_RUN_AS_NODE: '1' },
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
      // Its own process group, ended as a whole.
      detached: true,
    });
    if (this.child.pid !== undefined) liveSandboxes.add(this.child.pid);
    this.child.stderr!.setEncoding('utf8').on('data', (text: string) => {
      this.stderr = (this.stderr + text).slice(-STDERR_KEPT);
    });
    this.ready = new Promise((resolve) => {
      const timer = setTimeout(() => {
        resolve(`the worker did not start within ${this.options.startTimeoutMs ?? START_TIMEOUT_MS} ms`);
        this.end('its worker did not start in time');
      }, options.startTimeoutMs ?? START_TIMEOUT_MS);
      this.child.on('message', (reply: WorkerReply) => {
        if (reply?.type === 'ready') {
          clearTimeout(timer);
          this.idle();
          resolve(true);
        } else {
          this.settle(reply);
        }
      });
      this.child.once('error', (error) => {
        clearTimeout(timer);
        resolve(error.message);
        this.end(error.message);
      });
      this.child.once('exit', (code, signal) => {
        clearTimeout(timer);
        if (this.child.pid !== undefined) liveSandboxes.delete(this.child.pid);
        const why = this.stderr.trim().split('\n')[0] || (signal ? `bwrap killed by ${signal}` : `bwrap exit ${code}`);
        resolve(why);
        this.end(`its worker ended (${why})`);
      });
    });
  }

  run(request: WarmRequest, started: number): Promise<ExecResult> {
    if (this.ended !== undefined) return Promise.resolve(sandboxEnded(this.ended, performance.now() - started));
    clearTimeout(this.idleTimer);
    // Keeps the host alive while a run is out; idle, the channel must not hold the process.
    this.child.channel?.ref();
    const id = this.nextId++;
    return new Promise<ExecResult>((resolve) => {
      const backstop = setTimeout(() => this.end('its worker did not answer within the hook\'s timeout'), request.timeoutMs + (request.killGraceMs ?? KILL_GRACE_MS) + BACKSTOP_MS);
      this.pending.set(id, {
        request,
        resolve: (result) => {
          clearTimeout(backstop);
          resolve({ ...result, durationMs: performance.now() - started });
        },
      });
      const { command, env, stdin, timeoutMs, killGraceMs, outputLimit } = request;
      this.child.send({ id, command, env: withoutHostSockets(env), stdin, timeoutMs, killGraceMs, outputLimit } satisfies WorkerRequest, (error) => {
        if (error) this.end(`its worker could not be reached: ${error.message}`);
      });
    });
  }

  close(): void {
    this.end('Garuda closed it');
  }

  /**
   * A reply for a run that is out. Checked, not trusted: a hook in the sandbox runs as the same user
   * as the worker.
   */
  private settle(reply: WorkerReply): void {
    if (reply?.type !== 'result' && reply?.type !== 'failed') return;
    const run = this.pending.get(reply.id);
    if (!run) return;
    this.pending.delete(reply.id);
    run.resolve(reply.type === 'failed' ? { ...sandboxEnded('', 0), signal: null, spawnError: String(reply.message) } : checkedResult(reply.result, run.request));
    // The worker could not tidy up after its hooks: the next run gets a new sandbox.
    if (reply.retiring === true) this.end('it could not be put back in order after a hook');
    else if (this.pending.size === 0) this.idle();
  }

  private idle(): void {
    this.child.channel?.unref();
    clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => this.close(), this.options.idleMs ?? IDLE_MS);
    this.idleTimer.unref();
  }

  /** Ends the sandbox: runs still out fail, as a crashed hook does. */
  private end(why: string): void {
    if (this.ended !== undefined) return;
    this.ended = why;
    clearTimeout(this.idleTimer);
    this.onEnd();
    for (const [id, run] of this.pending) {
      this.pending.delete(id);
      run.resolve(sandboxEnded(why, 0));
    }
    if (this.child.connected) this.child.disconnect();
    const pid = this.child.pid;
    if (pid === undefined) return;
    // The worker exits when the channel closes; a stuck one is killed with its sandbox.
    setTimeout(() => {
      if (this.child.exitCode === null && this.child.signalCode === null) killGroup(pid);
    }, KILL_GRACE_MS).unref();
  }
}

function sandboxEnded(why: string, durationMs: number): ExecResult {
  return {
    exitCode: null,
    signal: 'SIGKILL',
    timedOut: false,
    stdout: '',
    stderr: why ? `the hook's sandbox ended while it ran: ${why}` : '',
    stdoutTruncated: false,
    stderrTruncated: false,
    durationMs,
  };
}

function checkedResult(result: ExecResult, request: WarmRequest): ExecResult {
  const text = (value: unknown) => (typeof value === 'string' ? value.slice(0, request.outputLimit ?? OUTPUT_LIMIT_BYTES) : '');
  const exitCode = Number.isInteger(result?.exitCode) ? result.exitCode : null;
  const signal = typeof result?.signal === 'string' ? result.signal : null;
  return {
    exitCode,
    // Neither an exit code nor a signal: the hook did not end normally.
    signal: exitCode === null && signal === null && typeof result?.spawnError !== 'string' ? 'SIGKILL' : signal,
    timedOut: result?.timedOut === true,
    stdout: text(result?.stdout),
    stderr: text(result?.stderr),
    stdoutTruncated: result?.stdoutTruncated !== false,
    stderrTruncated: result?.stderrTruncated !== false,
    durationMs: 0,
    ...(typeof result?.spawnError === 'string' && { spawnError: result.spawnError }),
  };
}

function killGroup(pid: number): void {
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // Gone already.
  }
}
