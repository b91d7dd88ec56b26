// What starting costs: the CLI against a bare `node`, and the extension in a real VS Code.
import { spawn } from 'node:child_process';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { interleaved } from './harness';
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
export interface ActivationReport {
  /** The extension's own `activationMs`: its `activate` call. */
  readonly activateMs: number;
  /** Median time to compile and run the bundle's top level, in the same extension host. */
  readonly loadMs: number;
  readonly vscodeVersion: string;
}

/** One window of the real test host (code-server), with a tests module that only reads the figures. */
export async function activationFigure(workspace: BenchWorkspace): Promise<Figure> {
  const { runIntegration } = require(path.join(REPO, 'test/host/runIntegration.js')) as {
    runIntegration(options: { extensionPath: string; testsPath: string; workspace: string; env: Record<string, string> }): Promise<number>;
  };
  const out = path.join(await workspace.folder('activation'), 'report.json');
  const code = await runIntegration({
    extensionPath: REPO,
    testsPath: path.join(__dirname, 'activation.js'),
    workspace: await workspace.folder('activation-root'),
    env: { GARUDA_HOME: await workspace.folder('activation-home'), GARUDA_BENCH_ACTIVATION: out },
  });
  if (code !== 0) throw new Error(`the test host exited with ${code}`);
  const report = JSON.parse(await fs.readFile(out, 'utf8')) as ActivationReport;
  return figure('extension activation in the real host (loading the bundle + `activate`)', report.loadMs + report.activateMs, 30, 'ms',
    `VS Code ${report.vscodeVersion} (code-server): loading ${report.loadMs.toFixed(1)} ms (median) + \`activate\` ${report.activateMs.toFixed(1)} ms`,
    { ...report });
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
