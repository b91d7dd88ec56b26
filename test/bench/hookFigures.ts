// What running hooks costs: the runner against a bare process, hooks in parallel, and the sandbox.
import { spawn } from 'node:child_process';
import { bwrapArgv, bwrapHost } from '../../src/core/bwrap';
import { createHookRunner, type ToolCall } from '../../src/core/runner';
import { detectSandbox } from '../../src/core/sandbox';
import { WarmSandboxes } from '../../src/core/warmSandbox';
import { interleaved, measure } from './harness';
import { figure, type Figure } from './report';
import { NO_SANDBOX, type BenchWorkspace } from './workspace';

const CALL: ToolCall = { tool: 'bash', input: { command: 'npm test' } };
const ONE_TRUE_HOOK = { preToolUse: [{ command: 'true' }] };
const SLEEPERS = 4;
const SLEEP_MS = 200;

export interface HookFigures {
  readonly overhead: Figure;
  readonly parallel: Figure;
  readonly sandbox: Figure;
}

export async function hookFigures(workspace: BenchWorkspace): Promise<HookFigures> {
  const set = await workspace.hookSet(ONE_TRUE_HOOK);
  const unsandboxed = createHookRunner({ sandbox: NO_SANDBOX });
  // The same JSON the runner sends the hook, so both sides write the same bytes to stdin.
  const stdin = JSON.stringify({ schemaVersion: 1, event: 'preToolUse', tool: 'bash', input: CALL.input, target: { kind: 'command', command: 'npm test' }, root: set.root });

  const overhead = await interleaved(() => unsandboxed.preToolUse(set, CALL), () => bare(SH_TRUE, stdin), { rounds: 20, iterations: 10 });

  const sandbox = detectSandbox();
  if (sandbox.name !== 'bwrap') throw new Error(`the sandbox figure needs a working bubblewrap, but: ${sandbox.available ? sandbox.name : sandbox.reason}`);
  // The editor's runner keeps its sandboxes warm; the CLI, which runs once, starts one per hook.
  const warmSandboxes = new WarmSandboxes();
  const sandboxed = createHookRunner({ sandbox, warmSandboxes });
  const coldStart = await timed(() => sandboxed.preToolUse(set, CALL));
  const isolation = await interleaved(() => sandboxed.preToolUse(set, CALL), () => unsandboxed.preToolUse(set, CALL), { rounds: 20, iterations: 10 });
  const perRun = createHookRunner({ sandbox });
  const perRunIsolation = await interleaved(() => perRun.preToolUse(set, CALL), () => unsandboxed.preToolUse(set, CALL), { rounds: 10, iterations: 10 });
  // The floor of a sandbox per run on this machine: bubblewrap itself, with the runner's arguments, against a bare shell.
  const bwrapTrue = bwrapArgv(sandbox.program, 'true', { root: set.root, tempDir: await workspace.folder('bwrap-tmp'), network: false }, bwrapHost(), []);
  const floor = await interleaved(() => bare(bwrapTrue, stdin), () => bare(SH_TRUE, stdin), { rounds: 10, iterations: 10 });

  const sleepers = await workspace.hookSet({ preToolUse: Array.from({ length: SLEEPERS }, () => ({ command: `sleep ${SLEEP_MS / 1000}` })) });
  const parallel = await measure(() => sandboxed.preToolUse(sleepers, CALL), 3000);
  warmSandboxes.dispose();

  return {
    overhead: figure('runner overhead: `preToolUse` with one matching hook `true` vs a bare `spawn(\'/bin/sh\', [\'-c\', \'true\'])` fed the same stdin', overhead.ratio, 1.1, '×',
      `medians ${ms(overhead.a.medianMs)} vs ${ms(overhead.b.medianMs)}, ${overhead.a.samples} calls each, interleaved; no sandbox, no audit`,
      { runnerMs: overhead.a.medianMs, spawnMs: overhead.b.medianMs, samples: overhead.a.samples }),
    parallel: figure(`${SLEEPERS} matching hooks that each sleep ${SLEEP_MS} ms`, parallel.medianMs, SLEEP_MS + 30, 'ms',
      `median of ${parallel.samples} calls, in the ${sandbox.name} sandbox`, { medianMs: parallel.medianMs, samples: parallel.samples }),
    sandbox: figure('sandboxed (bwrap) vs unsandboxed `true` hook', isolation.ratio, 3, '×',
      `medians ${ms(isolation.a.medianMs)} vs ${ms(isolation.b.medianMs)}, ${isolation.a.samples} calls each, interleaved, in the editor's warm sandbox, each hook in a sandbox nested in it (the first call, which starts the warm one: ${ms(coldStart)}); `
      + `a sandbox per run (the CLI): ${perRunIsolation.ratio.toFixed(2)}×, and bare bwrap with its arguments vs a bare shell: ${floor.ratio.toFixed(2)}×`,
      { sandboxedMs: isolation.a.medianMs, unsandboxedMs: isolation.b.medianMs, samples: isolation.a.samples, firstCallMs: coldStart, perRunRatio: perRunIsolation.ratio, bareBwrapRatio: floor.ratio }),
  };
}

const SH_TRUE = ['/bin/sh', '-c', 'true'];

async function timed(action: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await action();
  return performance.now() - started;
}

/** The physical floor: the hook's own process, started and fed its input, nothing else. */
function bare([file, ...args]: readonly string[], stdin: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(file!, args);
    child.once('error', reject);
    child.once('close', () => resolve());
    child.stdout.resume();
    child.stderr.resume();
    // `true` may exit before reading its input: a closed pipe is expected, as in the executor.
    child.stdin.on('error', () => undefined);
    child.stdin.end(stdin);
  });
}

const ms = (value: number) => `${value.toFixed(2)} ms`;
