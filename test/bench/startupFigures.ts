// What starting costs: the CLI against a bare `node`, and the extension in a real VS Code.
import { spawn } from 'node:child_process';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { LoadStats } from '../../src/codeCache';
import { interleaved, median } from './harness';
import { figure, type Figure } from './report';
import type { BenchWorkspace } from './workspace';

/** The repository: this file is bundled to out/test/bench/. */
const REPO = path.resolve(__dirname, '../../..');
const CLI = path.join(REPO, 'dist/cli.js');
const EXTENSION = path.join(REPO, 'dist/extension.js');

export async function cliStartFigure(workspace: BenchWorkspace): Promise<Figure> {
  const home = await workspace.folder('cli-home');
  const root = await workspace.folder('cli-root');
  const env = { ...process.env, GARUDA_HOME: home };
  const check = () => run([CLI, 'check', '--root', root, '--event', 'stop'], env, 'stop: allow (no hook matched)\n');
  const bare = () => run(['-e', '0'], env, '');
  const startup = await interleaved(check, bare, { rounds: 10, iterations: 4 });
  return figure('`garuda-hooks check` with no hooks vs `node -e 0` (CLI start-up)', startup.ratio, 1.5, '×',
    `medians ${startup.a.medianMs.toFixed(1)} ms vs ${startup.b.medianMs.toFixed(1)} ms, ${startup.a.samples} runs each, interleaved; \`check --event stop\`, empty GARUDA_HOME and root`,
    { cliMs: startup.a.medianMs, nodeMs: startup.b.medianMs, samples: startup.a.samples });
}

export async function bundleSizeFigure(): Promise<Figure> {
  const { size } = await fs.stat(EXTENSION);
  return figure('size of `dist/extension.js`', size / 1000, 400, 'KB', 'the production build (`node esbuild.js --production`), 1 KB = 1,000 bytes', { bytes: size });
}

/** What the in-host module (activation.ts) reports. */
export interface ActivationReport extends LoadStats {
  /** The extension's own `activationMs`: its `activate` call. */
  readonly activateMs: number;
  readonly vscodeVersion: string;
}

/** Windows after the first, which starts without a code cache and writes one. */
const CACHED_STARTS = 5;

/**
 * Real windows of the test host (code-server), each with a tests module that only reads the figures:
 * the first start after an install, then the starts after it, which have the code cache.
 */
export async function activationFigure(workspace: BenchWorkspace): Promise<Figure> {
  const { runIntegration } = require(path.join(REPO, 'test/host/runIntegration.js')) as {
    runIntegration(options: { extensionPath: string; testsPath: string; workspace: string; env: Record<string, string> }): Promise<number>;
  };
  const dist = path.dirname(EXTENSION);
  await Promise.all((await fs.readdir(dist)).filter((name) => name.endsWith('.cache')).map((name) => fs.rm(path.join(dist, name))));
  const start = async (i: number): Promise<ActivationReport> => {
    const out = path.join(await workspace.folder(`activation-${i}`), 'report.json');
    const code = await runIntegration({
      extensionPath: REPO,
      testsPath: path.join(__dirname, 'activation.js'),
      workspace: await workspace.folder(`activation-root-${i}`),
      env: { GARUDA_HOME: await workspace.folder(`activation-home-${i}`), GARUDA_BENCH_ACTIVATION: out },
    });
    if (code !== 0) throw new Error(`the test host exited with ${code}`);
    return JSON.parse(await fs.readFile(out, 'utf8')) as ActivationReport;
  };
  const first = await start(0);
  const cached: ActivationReport[] = [];
  for (let i = 1; i <= CACHED_STARTS; i++) cached.push(await start(i));
  const notCached = cached.filter((report) => report.codeCache !== 'used');
  if (first.codeCache !== 'none' || notCached.length > 0) throw new Error(`the code cache did not work: ${JSON.stringify([first, ...cached])}`);
  const total = (report: ActivationReport) => report.loadMs + report.activateMs;
  const load = median(cached.map((report) => report.loadMs));
  const activate = median(cached.map((report) => report.activateMs));
  return figure('extension activation in the real host (loading the bundle + `activate`)', median(cached.map(total)), 30, 'ms',
    `VS Code ${first.vscodeVersion} (code-server), median of ${CACHED_STARTS} windows: loading ${load.toFixed(1)} ms (with V8's code cache) + \`activate\` ${activate.toFixed(1)} ms; `
    + `the first start after an install, which compiles the bundle: ${first.loadMs.toFixed(1)} + ${first.activateMs.toFixed(1)} ms`,
    { loadMs: load, activateMs: activate, firstLoadMs: first.loadMs, firstActivateMs: first.activateMs, starts: cached.length });
}

/** Runs `node args`, checking it worked and printed `stdout`: a failing CLI must not look fast. */
function run(args: string[], env: NodeJS.ProcessEnv, stdout: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.once('error', reject);
    child.once('close', (code) => (code === 0 && out === stdout ? resolve() : reject(new Error(`node ${args.join(' ')}: exit ${code}: ${out}`))));
  });
}
