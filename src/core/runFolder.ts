// Where one hook run's input lives: the event as a 0600 file in a folder only this user can read,
// deleted when the run ends. A sandboxed run gets a fresh folder of its own (its writable TMPDIR,
// removed with whatever the hook left in it); an unsandboxed run needs no folder of its own, and its
// file goes into this process's private folder.
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { onProcessExit } from './processExit';

export interface RunFolder {
  /** A real path (sandboxes bind and match real paths; macOS's temp folder is behind a symlink). */
  readonly dir: string;
  readonly inputFile: string;
  /** Never rejects. */
  remove(): Promise<void>;
}

let processFolder: string | undefined;

/**
 * Synchronous on purpose: creating a file or folder takes microseconds, while each asynchronous call
 * waits its turn on libuv's thread pool; four of those per run cost a third of starting the hook's
 * shell. A folder per run costs an rmdir as well, slow where the disk discards freed blocks at once.
 */
export function createRunFolder(input: string, ownFolder: boolean): RunFolder {
  if (!ownFolder) {
    const dir = (processFolder ??= privateFolder());
    const inputFile = path.join(dir, `input-${randomUUID()}.json`);
    try {
      fs.writeFileSync(inputFile, input, { mode: 0o600, flag: 'wx' });
    } catch (error) {
      // A long-lived editor may outlive its folder (temp cleaners remove old ones): make a new one.
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      processFolder = undefined;
      return createRunFolder(input, false);
    }
    return { dir, inputFile, remove: () => removeInputFile(inputFile) };
  }
  const dir = makeFolder(os.tmpdir(), 'garuda-hook-');
  const inputFile = path.join(dir, 'input.json');
  try {
    fs.writeFileSync(inputFile, input, { mode: 0o600 });
  } catch (error) {
    fs.rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  return { dir, inputFile, remove: () => removeRunFolder(dir, inputFile) };
}

/**
 * Made on first use, removed when this process exits. In memory where the system offers it (the
 * user's runtime folder, else Linux's /dev/shm): a file on disk waits on the journal whenever other
 * programs write, which cost more than the rest of the runner.
 */
function privateFolder(): string {
  const dir = inMemoryFolder() ?? makeFolder(os.tmpdir(), 'garuda-hooks-');
  onProcessExit(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

function inMemoryFolder(): string | undefined {
  for (const base of [process.env.XDG_RUNTIME_DIR, process.platform === 'linux' ? '/dev/shm' : undefined]) {
    try {
      if (base) return makeFolder(base, 'garuda-hooks-');
    } catch {
      // Not there or not writable: the next.
    }
  }
  return undefined;
}

/** A new 0700 folder in `base`, by its real path. */
function makeFolder(base: string, prefix: string): string {
  return fs.mkdtempSync(path.join(fs.realpathSync.native(base), prefix));
}

/** The hook may have removed or replaced it, by a folder even. */
async function removeInputFile(file: string): Promise<void> {
  try {
    fs.unlinkSync(file);
  } catch {
    await removeTree(file);
  }
}

/**
 * Usually only the input file is left: two quick calls. Whatever a hook left behind (a sandboxed
 * npm cache in $TMPDIR, say) is removed asynchronously, so a large tree never blocks the event loop.
 */
async function removeRunFolder(dir: string, inputFile: string): Promise<void> {
  try {
    fs.unlinkSync(inputFile);
    fs.rmdirSync(dir);
  } catch {
    await removeTree(dir);
  }
}

/** Never fails: a hook may have taken the permissions away from a folder it made (`chmod 000`). */
async function removeTree(target: string): Promise<void> {
  try {
    await fs.promises.rm(target, { recursive: true, force: true });
  } catch {
    try {
      grantOwner(target);
      await fs.promises.rm(target, { recursive: true, force: true });
    } catch {
      // Left in the temp folder, whose cleaner removes it in time.
    }
  }
}

function grantOwner(target: string): void {
  if (!fs.lstatSync(target).isDirectory()) return;
  fs.chmodSync(target, 0o700);
  for (const name of fs.readdirSync(target)) grantOwner(path.join(target, name));
}
