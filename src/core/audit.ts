import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { withFileLock } from './fileLock';
import { auditFile } from './paths';

export type AuditDecision = 'allow' | 'deny' | 'feedback' | 'continue' | 'error' | 'deny_policy';
export type ConsentDecision = 'allow_once' | 'remember' | 'deny' | 'revoke';

/** One hook run. Output is stored cleaned, so the log is safe to show. */
export interface HookRunEntry {
  readonly kind: 'hook';
  readonly time: string;
  readonly event: string;
  readonly tool?: string;
  readonly toolCallId?: string;
  /** The agent that made the call, when it said ("copilot", "my-agent"). */
  readonly agent?: string;
  readonly source: 'user' | 'project';
  readonly root: string;
  readonly command: string;
  readonly durationMs: number;
  readonly exitCode: number | null;
  readonly signal: string | null;
  readonly timedOut: boolean;
  readonly decision: AuditDecision;
  readonly risk: 'normal' | 'high';
  readonly sandbox: string;
  readonly reason?: string;
  readonly stdout?: string;
  readonly stderr?: string;
}

export interface ConsentEntry {
  readonly kind: 'consent';
  readonly time: string;
  readonly root: string;
  readonly decision: ConsentDecision;
  readonly hash: string;
}

export type AuditEntry = HookRunEntry | ConsentEntry;

export interface AuditLog {
  readonly file: string;
  append(entry: AuditEntry): Promise<void>;
  /** The newest `count` entries, oldest first; unreadable lines are passed over. */
  tail(count: number): Promise<AuditEntry[]>;
  /** Resolves when every append started so far has landed (or failed): a CLI waits for it before exiting. */
  flush(): Promise<void>;
}

export interface AuditOptions {
  readonly maxBytes?: number;
  readonly keep?: number;
}

const DEFAULT_MAX_BYTES = 5 * 1024 * 1024;
const DEFAULT_KEEP = 3;

export function createAuditLog(home: string, options: AuditOptions = {}): AuditLog {
  const file = auditFile(home);
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
  const keep = options.keep ?? DEFAULT_KEEP;
  const pending = new Set<Promise<void>>();
  const write = async (entry: AuditEntry) => {
    await fs.mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
    // One write of one line with O_APPEND: concurrent writers on Linux cannot interleave it.
    await fs.appendFile(file, JSON.stringify(entry) + '\n', { mode: 0o600 });
    // Another process may have rotated the file away since the write; the line is in the old one.
    const size = (await fs.stat(file).catch(() => undefined))?.size ?? 0;
    if (size > maxBytes) await withFileLock(file, () => rotate(file, maxBytes, keep));
  };
  return {
    file,
    append(entry) {
      const written = write(entry);
      const settled = written.catch(() => undefined);
      pending.add(settled);
      void settled.then(() => pending.delete(settled));
      return written;
    },
    async flush() {
      await Promise.all([...pending]);
    },
    async tail(count) {
      const entries: AuditEntry[] = [];
      for (let generation = 0; generation <= keep && entries.length < count; generation++) {
        const text = await fs.readFile(rotated(file, generation), 'utf8').catch(() => '');
        const lines = text.split('\n').filter(Boolean).reverse();
        for (const line of lines) {
          const entry = parseEntry(line);
          if (entry) entries.push(entry);
          if (entries.length >= count) break;
        }
      }
      return entries.reverse();
    },
  };
}

function rotated(file: string, generation: number): string {
  return generation === 0 ? file : `${file}.${generation}`;
}

async function rotate(file: string, maxBytes: number, keep: number): Promise<void> {
  // Another process may have rotated while this one waited for the lock.
  const stat = await fs.stat(file).catch(() => undefined);
  if (!stat || stat.size <= maxBytes) return;
  for (let generation = keep; generation >= 1; generation--) {
    await fs.rename(rotated(file, generation - 1), rotated(file, generation)).catch(() => undefined);
  }
}

function parseEntry(line: string): AuditEntry | undefined {
  try {
    const value = JSON.parse(line) as AuditEntry;
    return typeof value === 'object' && value !== null && typeof value.time === 'string' ? value : undefined;
  } catch {
    return undefined;
  }
}
