import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { TeamPolicy } from '../../src/core/policy';
import { detectSandbox, type SandboxInfo } from '../../src/core/sandbox';

/** A fresh folder per test, removed afterwards: tests never touch the real ~/.garuda. */
export async function tempDir(prefix = 'garuda-test-'): Promise<string> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), prefix));
  return fs.realpath(dir);
}

export async function writeJson(file: string, value: unknown): Promise<void> {
  await fs.mkdir(path.dirname(file), { recursive: true });
  await fs.writeFile(file, typeof value === 'string' ? value : JSON.stringify(value, null, 2));
}

/** A GARUDA_HOME, a workspace root, and clean-up. */
export async function fixture(): Promise<{ home: string; root: string; cleanup: () => Promise<void> }> {
  const base = await tempDir();
  const home = path.join(base, 'home');
  const root = path.join(base, 'project');
  await fs.mkdir(home, { recursive: true });
  await fs.mkdir(root, { recursive: true });
  return { home, root, cleanup: () => fs.rm(base, { recursive: true, force: true }) };
}

export const userHooks = (home: string) => path.join(home, 'hooks.json');
export const projectHooks = (root: string) => path.join(root, '.garuda', 'hooks.json');

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

export async function waitFor(check: () => boolean | Promise<boolean>, ms = 5000): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return check();
}

/** A small program under test/unit/workers/, bundled beside the tests, for checks across processes. */
export const worker = (name: string) => path.resolve('out/test/unit/workers', `${name}.js`);

/** For tests about hooks, not about isolation: hooks run as they would on a machine without a sandbox. */
export const noSandbox: SandboxInfo = {
  name: 'none',
  available: false,
  description: 'hooks run with your full user permissions, because this test runs them without one.',
  reason: 'this test runs them without one',
};

/** No policy file at the managed path. */
export const noPolicy: TeamPolicy = {
  file: '/etc/garuda/policy.json',
  exists: false,
  requireSandbox: false,
  disallowedCommands: [],
  allowProjectHooks: true,
  allowNetwork: true,
};

/** The real bubblewrap. CI installs it; a machine without it fails the sandbox tests instead of skipping them. */
export function bwrapSandbox(): Extract<SandboxInfo, { available: true }> {
  const sandbox = detectSandbox();
  if (sandbox.name !== 'bwrap') {
    throw new Error(`The sandbox tests need a working bubblewrap (Debian package "bubblewrap"), but: ${sandbox.available ? `found ${sandbox.name}` : sandbox.reason}`);
  }
  return sandbox;
}

/** Host pids of the processes whose arguments contain `token`, found by the host's /proc: pids inside a sandbox are not the host's. */
export async function processesWith(token: string, which: (argv: string[]) => boolean = () => true): Promise<number[]> {
  const pids = (await fs.readdir('/proc')).filter((name) => /^\d+$/.test(name));
  const matching = await Promise.all(pids.map(async (pid) => {
    const argv = (await fs.readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '')).split('\0');
    return argv.some((arg) => arg.includes(token)) && which(argv) ? [Number(pid)] : [];
  }));
  return matching.flat();
}
