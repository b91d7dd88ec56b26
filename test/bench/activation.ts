// Loaded by VS Code as extensionTestsPath during `npm run bench`: reads what activation costs inside the
// real extension host and writes it to $GARUDA_BENCH_ACTIVATION. It tests nothing.
import * as fs from 'node:fs';
import Module from 'node:module';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { GarudaHooksApi } from '../../src/api';
import { median } from './harness';
import type { ActivationReport } from './startupFigures';

const LOADS = 15;

/** Node's loader internals that VS Code's own extension loading goes through. */
interface LoadableModule {
  filename: string;
  paths: string[];
  _compile(source: string, filename: string): void;
}
type ModuleInternals = { new (id: string, parent: NodeModule): LoadableModule; _nodeModulePaths(dir: string): string[] };

export async function run(): Promise<void> {
  const out = process.env.GARUDA_BENCH_ACTIVATION;
  if (!out) throw new Error('GARUDA_BENCH_ACTIVATION is not set: run this through `npm run bench`');
  const extension = vscode.extensions.getExtension<GarudaHooksApi>('garuda.garuda-hooks');
  if (!extension) throw new Error('garuda.garuda-hooks is not installed in the test host');
  const api = await extension.activate();
  const report: ActivationReport = { activateMs: api.activationMs, loadMs: median(loadTimes(path.join(extension.extensionPath, extension.packageJSON.main as string))), vscodeVersion: vscode.version };
  fs.writeFileSync(out, JSON.stringify(report));
}

/**
 * Compiles and runs the bundle's top level as VS Code's loader does. A unique last line each time
 * keeps V8 from reusing the compiled script, which the first real load could not do either.
 */
function loadTimes(file: string): number[] {
  const source = fs.readFileSync(file, 'utf8');
  const Loader = Module as unknown as ModuleInternals;
  // Each load adds the executor's exit listener again: expected here, not a leak.
  process.setMaxListeners(process.getMaxListeners() + LOADS);
  return Array.from({ length: LOADS }, (_, i) => {
    const loaded = new Loader(file, module);
    loaded.filename = file;
    loaded.paths = Loader._nodeModulePaths(path.dirname(file));
    const started = performance.now();
    loaded._compile(`${source}\n// load ${i} ${Date.now()}`, file);
    return performance.now() - started;
  });
}
