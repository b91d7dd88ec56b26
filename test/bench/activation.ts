// Loaded by VS Code as extensionTestsPath during `npm run bench`: reads what activation cost inside the
// real extension host, the first time in this window, and writes it to $GARUDA_BENCH_ACTIVATION. It
// tests nothing.
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { GarudaHooksApi } from '../../src/api';
import type { LoadStats } from '../../src/codeCache';
import type { ActivationReport } from './startupFigures';

/** How long to wait for the code cache the extension writes after activation: the next window needs it. */
const CACHE_WAIT_MS = 20_000;

export async function run(): Promise<void> {
  const out = process.env.GARUDA_BENCH_ACTIVATION;
  if (!out) throw new Error('GARUDA_BENCH_ACTIVATION is not set: run this through `npm run bench`');
  const extension = vscode.extensions.getExtension<GarudaHooksApi>('garuda.garuda-hooks');
  if (!extension) throw new Error('garuda.garuda-hooks is not installed in the test host');
  const api = await extension.activate();
  // The module VS Code loaded, from Node's module cache: its figures are those of the real load.
  const main = path.join(extension.extensionPath, extension.packageJSON.main as string);
  const { loadStats } = require(main) as { loadStats: LoadStats };
  const report: ActivationReport = { activateMs: api.activationMs, ...loadStats, vscodeVersion: vscode.version };
  fs.writeFileSync(out, JSON.stringify(report));
  const dist = path.dirname(main);
  const end = Date.now() + CACHE_WAIT_MS;
  while (!fs.readdirSync(dist).some((name) => name.endsWith('.cache')) && Date.now() < end) await new Promise((resolve) => setTimeout(resolve, 100));
}
