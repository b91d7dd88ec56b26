// Temp folders for the benchmark: a GARUDA_HOME and a workspace root per hook set, never the user's own.
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { loadHookSet, type HookSet } from '../../src/core/hookSet';
import type { SandboxInfo } from '../../src/core/sandbox';

/** For the figures that compare against a bare process: hooks run as on a machine without a sandbox. */
export const NO_SANDBOX: SandboxInfo = {
  name: 'none',
  available: false,
  description: 'hooks run with your full user permissions, because the benchmark measures the runner alone.',
  reason: 'the benchmark measures the runner alone',
};

export interface BenchWorkspace {
  /** The hooks in `hooks` (a hooks.json document) as user hooks, loaded like the CLI does. */
  hookSet(hooks: unknown): Promise<HookSet>;
  /** A new empty folder. */
  folder(name: string): Promise<string>;
  remove(): Promise<void>;
}

export async function benchWorkspace(): Promise<BenchWorkspace> {
  const base = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'garuda-bench-')));
  let sets = 0;
  const folder = async (name: string) => {
    const dir = path.join(base, name);
    await fs.mkdir(dir, { recursive: true });
    return dir;
  };
  return {
    async hookSet(hooks) {
      const home = await folder(`set-${++sets}/home`);
      const root = await folder(`set-${sets}/root`);
      await fs.writeFile(path.join(home, 'hooks.json'), JSON.stringify({ hooks }));
      // A managed policy path that does not exist: no team policy, whatever this machine has.
      return loadHookSet({ home, root, policy: { file: path.join(base, 'no-policy.json'), explicit: false } });
    },
    folder,
    remove: () => fs.rm(base, { recursive: true, force: true }),
  };
}
