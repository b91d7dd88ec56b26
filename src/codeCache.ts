// Runs a bundle with V8's code cache. Compiling the extension's bundle was most of what loading it
// cost; with the cache V8 skips that from the second start on. The cache is written beside the
// bundle, where only whoever can change the bundle can write, after activation, so it holds the
// functions activation compiled too.
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import { createRequire, wrap } from 'node:module';
import * as path from 'node:path';
import * as vm from 'node:vm';

/** How the bundle was loaded: main.ts exports it as `loadStats`, which the benchmark reads. */
export interface LoadStats {
  /** Reading, compiling and running the bundle's top level. */
  readonly loadMs: number;
  /** `used` a cache; `rejected` one V8 would not take (written anew); `none` there was none yet. */
  readonly codeCache: 'used' | 'rejected' | 'none';
}

/** Late enough that activation has compiled what it needs, early enough to be there next start. */
const WRITE_DELAY_MS = 5_000;

/**
 * `writeDelayMs` is for tests. The bundle runs without `importModuleDynamically`: it is CommonJS and
 * never uses `import()`, which would fail here.
 */
export function loadWithCodeCache(file: string, writeDelayMs = WRITE_DELAY_MS): { exports: unknown; stats: LoadStats } {
  const started = performance.now();
  const source = fs.readFileSync(file, 'utf8');
  // A cache belongs to one bundle and one V8: an update, or another editor sharing the folder, gets its own.
  const cacheFile = `${file}.${createHash('sha256').update(source).update(process.versions.v8).digest('hex').slice(0, 16)}.cache`;
  const cachedData = readIfThere(cacheFile);
  const script = new vm.Script(wrap(source), { filename: file, ...(cachedData && { cachedData }) });
  const module = { exports: {} as unknown };
  const run = script.runInThisContext() as (...args: unknown[]) => void;
  run.call(module.exports, module.exports, createRequire(file), module, file, path.dirname(file));
  const codeCache = !cachedData ? 'none' : script.cachedDataRejected ? 'rejected' : 'used';
  if (codeCache !== 'used') setTimeout(() => writeCache(script, file, cacheFile), writeDelayMs).unref();
  return { exports: module.exports, stats: { loadMs: performance.now() - started, codeCache } };
}

function readIfThere(file: string): Buffer | undefined {
  try {
    return fs.readFileSync(file);
  } catch {
    return undefined;
  }
}

/** Replaces older caches of the bundle; an extension folder that cannot be written just has none. */
function writeCache(script: vm.Script, file: string, cacheFile: string): void {
  const dir = path.dirname(file);
  const bundle = path.basename(file);
  const temporary = `${cacheFile}.${process.pid}.tmp`;
  try {
    fs.writeFileSync(temporary, script.createCachedData(), { mode: 0o644 });
    fs.renameSync(temporary, cacheFile);
    for (const name of fs.readdirSync(dir)) {
      if (name.startsWith(`${bundle}.`) && name.endsWith('.cache') && path.join(dir, name) !== cacheFile) fs.rmSync(path.join(dir, name), { force: true });
    }
  } catch {
    fs.rmSync(temporary, { force: true });
  }
}
