import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';

const STALE_LOCK_MS = 10_000;
const RETRY_MS = 5;

/** Writes a private file so readers see the old or the new content, never half of it. */
export async function writeFileAtomic(file: string, data: string, mode = 0o600): Promise<void> {
  await fs.mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  const temp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    await fs.writeFile(temp, data, { mode, flag: 'wx' });
    await fs.rename(temp, file);
  } catch (error) {
    await fs.rm(temp, { force: true });
    throw error;
  }
}

/**
 * Runs `task` while holding `<file>.lock`, so read-modify-write cycles from several processes
 * (two windows, a CLI) do not lose each other's changes. A lock older than 10 s belongs to a
 * process that died and is taken over.
 */
export async function withFileLock<T>(file: string, task: () => Promise<T>): Promise<T> {
  const lock = `${file}.lock`;
  await fs.mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  for (;;) {
    try {
      await fs.writeFile(lock, String(process.pid), { flag: 'wx', mode: 0o600 });
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const stat = await fs.stat(lock).catch(() => undefined);
      if (stat && Date.now() - stat.mtimeMs > STALE_LOCK_MS) await fs.rm(lock, { force: true });
      else await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
    }
  }
  try {
    return await task();
  } finally {
    await fs.rm(lock, { force: true });
  }
}
