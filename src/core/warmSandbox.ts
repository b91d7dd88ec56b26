// Warm bwrap sandboxes: one long-lived sandbox per workspace root, hook source and network setting
// (and per root folder and host layout, see sandboxIdentity), with a worker inside (sandboxWorker.ts) that starts each hook in a sandbox nested in it. A sandbox
// per run builds the read-only system, /dev and a network namespace for every hook, which costs
// twice what the hook's own shell does; here only the parts a hook could change or see are new for
// each run: its PID and IPC namespaces, /proc, /tmp, /dev/shm, the emptied folders, and the
// protected folders bound as they are at that moment. The worker is out of the hooks' sight.
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import type { Socket } from 'node:net';
import { KILL_GRACE_MS, killGroup, OUTPUT_LIMIT_BYTES, type ExecRequest, type ExecResult } from './executor';
import { bwrapHost, bwrapWarmArgv, type BwrapHost } from './bwrap';
import { onProcessExit } from './processExit';

/** The worker's source, bundled by esbuild.js and run with `node -e`: nothing to find on disk. */
declare const GARUDA_SANDBOX_WORKER: string;

/** What the worker is started with, as its one argument. */
export interface WorkerSetup {
  readonly program: string;
  readonly root: string;
  readonly network: boolean;
  /** Read on the host: inside, /run and the runtime folder are already empty. */
  readonly host: BwrapHost;
}

export interface WorkerRequest {
  readonly id: number;
  readonly command: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly stdin: string;
  readonly timeoutMs: number;
}

export type WorkerReply =
  | { readonly type: 'ready' }
  | { readonly type: 'unavailable'; readonly reason: string }
  | { readonly type: 'result'; readonly id: number; readonly result: ExecResult }
  | { readonly type: 'failed'; readonly id: number; readonly message: string };

/** A hook run in the root: the sandbox decides the program, the folders and the open files. */
export type WarmRequest = Pick<ExecRequest, 'command' | 'env' | 'stdin' | 'timeoutMs'>;

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
  /** Why a warm sandbox could not start, in words; runs then get a sandbox each for a while. */
  readonly onProblem?: (message: string) => void;
}

const IDLE_MS = 60_000;
/** After a warm sandbox could not start, hooks get a sandbox each for this long before the next try. */
const RETRY_MS = 10 * 60_000;
const START_TIMEOUT_MS = 10_000;
/** Beyond a hook's timeout and kill grace: a worker that has not answered by then is ended. */
const BACKSTOP_MS = 5_000;
const STDERR_KEPT = 2_000;

const liveSandboxes = new Set<number>();
onProcessExit(() => liveSandboxes.forEach((pid) => killGroup(pid, 'SIGKILL')));

export class WarmSandboxes {
  private readonly sandboxes = new Map<string, WarmSandbox>();
  /**
   * Until when runs get a sandbox each: what stops a worker (no nesting, a runtime that will not run as
   * Node, a machine too busy to start it in time) is rarely about one root.
   */
  private unavailableUntil = 0;

  constructor(private readonly options: WarmSandboxOptions = {}) {}

  /** Sandboxes up now. */
  get size(): number {
    return this.sandboxes.size;
  }

  /**
   * Runs one hook in the warm sandbox for `key`, started on first use. Undefined when warm sandboxes
   * cannot work here (said through onProblem, then not tried again for RETRY_MS): the caller then runs
   * the hook in a sandbox of its own.
   */
  async run(key: WarmSandboxKey, request: WarmRequest): Promise<ExecResult | undefined> {
    // Start-up is part of what the run costs, the worker's too.
    const started = performance.now();
    const host = bwrapHost();
    const id = sandboxIdentity(key, host);
    // A root that is gone fails in a sandbox of its own, with the usual words.
    if (id === undefined || started < this.unavailableUntil) return undefined;
    let sandbox = this.sandboxes.get(id);
    if (!sandbox) {
      sandbox = new WarmSandbox(this.options, key, host, () => {
        if (this.sandboxes.get(id) === sandbox) this.sandboxes.delete(id);
      });
      this.sandboxes.set(id, sandbox);
    }
    const ready = await sandbox.ready;
    if (ready !== true) {
      if (started >= this.unavailableUntil) {
        this.unavailableUntil = performance.now() + RETRY_MS;
        this.options.onProblem?.(`The warm hook sandbox for ${key.root} could not start (${ready}); each hook starts a sandbox of its own for the next ${RETRY_MS / 60_000} minutes.`);
      }
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
 * What the sandbox was built from. A root folder that was replaced is not the one mounted in the
 * sandbox; the host's /run, /var/tmp and runtime folder decide what is emptied.
 */
function sandboxIdentity(key: WarmSandboxKey, host: BwrapHost): string | undefined {
  const root = fs.statSync(key.root, { throwIfNoEntry: false });
  if (!root?.isDirectory()) return undefined;
  return JSON.stringify([key.program, key.source, key.root, `${root.dev}:${root.ino}`, key.network, host]);
}

class WarmSandbox {
  /** True once the worker is ready, or why it could not start. */
  readonly ready: Promise<true | string>;
  private readonly child: ChildProcess;
  private readonly pending = new Map<number, (result: ExecResult) => void>();
  private nextId = 0;
  private stderr = '';
  private idleTimer: NodeJS.Timeout | undefined;
  private ended: string | undefined;

  constructor(private readonly options: WarmSandboxOptions, key: WarmSandboxKey, host: BwrapHost, private readonly onEnd: () => void) {
    const setup: WorkerSetup = { program: key.program, root: key.root, network: key.network, host };
    const [program, ...args] = [
      ...bwrapWarmArgv(key.program, key, host),
      options.runtime ?? process.execPath, '-e', GARUDA_SANDBOX_WORKER, JSON.stringify(setup),
    ];
    this.child = spawn(program!, args, {
      // Only what the worker needs: each hook gets its whole environment with its request.
      env: { ELECTRON_RUN_AS_NODE: '1' },
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
      // Its own process group, ended as a whole.
      detached: true,
    });
    const pid = this.child.pid;
    if (pid !== undefined) liveSandboxes.add(pid);
    this.child.stderr!.setEncoding('utf8').on('data', (text: string) => {
      this.stderr = (this.stderr + text).slice(-STDERR_KEPT);
    });
    const startTimeoutMs = options.startTimeoutMs ?? START_TIMEOUT_MS;
    this.ready = new Promise((resolve) => {
      const timer = setTimeout(() => {
        resolve(`the worker did not start within ${startTimeoutMs} ms`);
        this.end('its worker did not start in time');
      }, startTimeoutMs);
      this.child.on('message', (reply: WorkerReply) => {
        if (reply?.type === 'ready' || reply?.type === 'unavailable') {
          clearTimeout(timer);
          resolve(reply.type === 'ready' || String(reply.reason));
          if (reply.type === 'ready') this.idle();
          else this.end('its worker cannot start hooks');
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
        if (pid !== undefined) liveSandboxes.delete(pid);
        const why = this.stderr.trim().split('\n')[0] || (signal ? `bwrap killed by ${signal}` : `bwrap exit ${code}`);
        resolve(why);
        this.end(`its worker ended (${why})`);
      });
    });
  }

  run(request: WarmRequest, started: number): Promise<ExecResult> {
    if (this.ended !== undefined) return Promise.resolve({ ...sandboxEnded(this.ended), durationMs: performance.now() - started });
    clearTimeout(this.idleTimer);
    this.holdHost(true);
    const id = this.nextId++;
    return new Promise<ExecResult>((resolve) => {
      const backstop = setTimeout(() => this.end('its worker did not answer within the hook\'s timeout'), request.timeoutMs + KILL_GRACE_MS + BACKSTOP_MS);
      this.pending.set(id, (result) => {
        clearTimeout(backstop);
        resolve({ ...result, durationMs: performance.now() - started });
      });
      const { command, env, stdin, timeoutMs } = request;
      this.child.send({ id, command, env, stdin, timeoutMs } satisfies WorkerRequest, (error) => {
        if (error) this.end(`its worker could not be reached: ${error.message}`);
      });
    });
  }

  close(): void {
    this.end('Garuda closed it');
  }

  /** A reply for a run that is out. */
  private settle(reply: WorkerReply): void {
    if (reply?.type !== 'result' && reply?.type !== 'failed') return;
    const resolve = this.pending.get(reply.id);
    if (!resolve) return;
    this.pending.delete(reply.id);
    resolve(reply.type === 'failed' ? notStarted(String(reply.message)) : checkedResult(reply.result));
    if (this.pending.size === 0) this.idle();
  }

  private idle(): void {
    this.holdHost(false);
    clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => this.close(), this.options.idleMs ?? IDLE_MS);
    this.idleTimer.unref();
  }

  /** While a run is out the sandbox keeps the host process alive; idle, it must not. */
  private holdHost(hold: boolean): void {
    // The stderr pipe is a socket, with ref and unref.
    for (const handle of [this.child, this.child.stderr as Socket | null, this.child.channel]) {
      if (hold) handle?.ref();
      else handle?.unref();
    }
  }

  /** Ends the sandbox: runs still out fail, as a crashed hook does. */
  private end(why: string): void {
    if (this.ended !== undefined) return;
    this.ended = why;
    clearTimeout(this.idleTimer);
    this.onEnd();
    for (const [id, resolve] of this.pending) {
      this.pending.delete(id);
      resolve(sandboxEnded(why));
    }
    this.holdHost(false);
    if (this.child.connected) this.child.disconnect();
    const pid = this.child.pid;
    if (pid === undefined) return;
    // The worker exits when the channel closes; a stuck one is killed with its sandbox.
    setTimeout(() => {
      if (this.child.exitCode === null && this.child.signalCode === null) killGroup(pid, 'SIGKILL');
    }, KILL_GRACE_MS).unref();
  }
}

/** A run whose sandbox went away: it fails as a hook killed mid-run does. Its time is set by `run`. */
function sandboxEnded(why: string): ExecResult {
  const stderr = `the hook's sandbox ended while it ran: ${why}`;
  return { exitCode: null, signal: 'SIGKILL', timedOut: false, stdout: '', stderr, stdoutTruncated: false, stderrTruncated: false, durationMs: 0 };
}

/** A hook the worker could not start (a NUL byte in its environment, say). */
function notStarted(message: string): ExecResult {
  return { exitCode: null, signal: null, timedOut: false, stdout: '', stderr: '', stdoutTruncated: false, stderrTruncated: false, durationMs: 0, spawnError: message };
}

/**
 * The worker's reply, read field by field as a second line of defence: the worker runs inside the
 * sandbox, and only a well-formed result, within the output limit, reaches the decision.
 */
function checkedResult(result: ExecResult): ExecResult {
  // Characters, not bytes: never fewer than the worker's byte limit kept.
  const text = (value: unknown) => (typeof value === 'string' ? value.slice(0, OUTPUT_LIMIT_BYTES) : '');
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
