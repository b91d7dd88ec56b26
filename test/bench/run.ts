// `npm run bench`: what a hook costs an agent's tool call, every figure in one run against its goal.
// Prints a Markdown table and writes test/.artifacts/bench.json. Exit 0 even when a goal is missed:
// timings on a shared machine inform, they do not fail a build.
//   node out/test/bench/run.js [--no-host]   (--no-host: skip the activation figure and its VS Code window)
import * as path from 'node:path';
import { cliStartFigure, activationFigure, bundleSizeFigure } from './startupFigures';
import { hookFigures } from './hookFigures';
import { manyRulesFigure, noMatchFigure } from './matchFigures';
import { table, writeJson, type Figure } from './report';
import { benchWorkspace } from './workspace';

const OUT = path.resolve(__dirname, '../../../test/.artifacts/bench.json');

async function main(): Promise<void> {
  const workspace = await benchWorkspace();
  try {
    const step = async <T>(what: string, measureIt: () => Promise<T>): Promise<T> => {
      process.stderr.write(`[bench] ${what}…\n`);
      return measureIt();
    };
    const hooks = await step('runner, parallel hooks, sandbox', () => hookFigures(workspace));
    const figures: Figure[] = [
      hooks.overhead,
      await step('no match among 1,000 hooks', () => noMatchFigure(workspace)),
      await step('10,000 rules', async () => manyRulesFigure(await workspace.folder('rules-root'))),
      hooks.parallel,
      hooks.sandbox,
      await step('CLI start-up', () => cliStartFigure(workspace)),
      ...(process.argv.includes('--no-host') ? [] : [await step('activation in VS Code', () => activationFigure(workspace))]),
      await bundleSizeFigure(),
    ];
    console.log(table(figures));
    await writeJson(OUT, figures);
    console.log(`\nWritten to ${path.relative(process.cwd(), OUT)}`);
  } finally {
    await workspace.remove();
  }
}

main().catch((error: unknown) => {
  console.error(`[bench] ${error instanceof Error ? error.stack : String(error)}`);
  process.exitCode = 1;
});
