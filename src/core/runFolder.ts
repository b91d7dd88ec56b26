// The private folder of one hook run: a fresh temp folder (0700) holding the event as input.json
// (0600), the sandbox's writable TMPDIR, removed when the run ends.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

export interface RunFolder {
  /** A real path: sandboxes bind and match real paths (macOS's temp folder is behind a symlink). */
  readonly dir: string;
  readonly inputFile: string;
  remove(): Promise<void>;
}

/**
 * Synchronous on purpose: creating a folder and writing a few hundred bytes take microseconds,
 * while each asynchronous call waits its turn on libuv's thread pool; the four calls a run needed
 * that way cost a third of starting the hook's shell (`npm run bench`, runner overhead).
 */
export function createRunFolder(input: string): RunFolder {
  const dir = fs.mkdtempSync(path.join(fs.realpathSync.native(os.tmpdir()), 'garuda-hook-'));
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
 * Usually only the input file is left: two quick calls. Whatever a hook left behind (a sandboxed
 * npm cache in $TMPDIR, say) is removed asynchronously, so a large tree never blocks the event loop.
 */
async function removeRunFolder(dir: string, inputFile: string): Promise<void> {
  try {
    fs.unlinkSync(inputFile);
    fs.rmdirSync(dir);
  } catch {
    await fs.promises.rm(dir, { recursive: true, force: true });
  }
}
