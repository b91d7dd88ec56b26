// Bundles the CLI, the extension and the test suites. `--production` minifies, `--watch` rebuilds,
// `--tests` also bundles every test file so mocha runs plain JavaScript, `--bench` the benchmark.
const esbuild = require('esbuild');
const fs = require('node:fs');
const path = require('node:path');

const production = process.argv.includes('--production');
const watch = process.argv.includes('--watch');
const tests = process.argv.includes('--tests');
const bench = process.argv.includes('--bench');

/** Reports errors in the `file:line:col: error: …` form VS Code's problem matchers read. */
const problemMatcher = {
  name: 'problem-matcher',
  setup(build) {
    build.onEnd((result) => {
      for (const { text, location } of result.errors) {
        console.error(`✘ [ERROR] ${text}`);
        if (location) console.error(`    ${location.file}:${location.line}:${location.column}:`);
      }
    });
  },
};

const common = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  // jsonc-parser's UMD build hides its requires from the bundler; its ES module build does not.
  mainFields: ['module', 'main'],
  sourcemap: !production,
  minify: production,
  logLevel: 'warning',
  // The shell parser is 1.5 MB of transpiled Go: it ships beside the bundle and loads on first use.
  external: ['vscode', 'mvdan-sh', './shell-parser.js'],
  plugins: [problemMatcher],
};

function listTests(dir) {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { recursive: true })
    .filter((f) => String(f).endsWith('.test.ts'))
    .map((f) => path.join(dir, String(f)));
}

/**
 * The warm sandbox's worker (src/core/sandboxWorker.ts) as one script, which the bundles run with
 * `node -e`: a file beside them could be hidden by the sandbox's private /tmp.
 */
async function sandboxWorkerSource() {
  const { outputFiles } = await esbuild.build({ ...common, plugins: [], sourcemap: false, minify: true, write: false, entryPoints: ['src/core/sandboxWorker.ts'], outfile: 'worker.js' });
  return outputFiles[0].text;
}

async function main() {
  fs.mkdirSync('dist', { recursive: true });
  // Every bundle that may start a warm sandbox carries the worker.
  const bundle = { ...common, define: { GARUDA_SANDBOX_WORKER: JSON.stringify(await sandboxWorkerSource()) } };
  fs.copyFileSync(require.resolve('mvdan-sh'), 'dist/shell-parser.js');
  const builds = [
    { ...bundle, entryPoints: { cli: 'src/cli.ts' }, outdir: 'dist', banner: { js: '#!/usr/bin/env node' } },
  ];
  if (fs.existsSync('src/extension.ts')) {
    // main.js is the entry point: it loads extension.js with V8's code cache.
    builds.push({ ...bundle, entryPoints: { extension: 'src/extension.ts', main: 'src/main.ts' }, outdir: 'dist' });
  }
  if (tests) {
    const workers = fs.readdirSync('test/unit/workers').map((f) => path.join('test/unit/workers', f));
    const entryPoints = [...listTests('test/unit'), ...workers];
    builds.push({ ...bundle, entryPoints, outdir: 'out/test/unit', outbase: 'test/unit', external: ['vscode', 'mocha'] });
    const integration = ['test/integration/index.ts', ...listTests('test/integration')];
    builds.push({ ...bundle, entryPoints: integration, outdir: 'out/test/integration', external: ['vscode', 'mocha'] });
    builds.push({ ...bundle, entryPoints: listTests('test/e2e'), outdir: 'out/test/e2e', external: ['playwright-core', 'mocha'] });
  }
  if (bench) {
    builds.push({ ...bundle, entryPoints: ['test/bench/run.ts', 'test/bench/activation.ts'], outdir: 'out/test/bench' });
  }
  const contexts = await Promise.all(builds.map((options) => esbuild.context(options)));
  if (watch) {
    await Promise.all(contexts.map((ctx) => ctx.watch()));
    return;
  }
  await Promise.all(contexts.map((ctx) => ctx.rebuild()));
  await Promise.all(contexts.map((ctx) => ctx.dispose()));
  fs.chmodSync('dist/cli.js', 0o755);
  await writeJsonSchema();
}

/** dist/hooks.schema.json, from the zod schema, for the editor's completion and hovers in hooks.json. */
async function writeJsonSchema() {
  const outfile = 'out/build/jsonSchema.js';
  await esbuild.build({ ...common, plugins: [], sourcemap: false, minify: false, entryPoints: ['src/core/jsonSchema.ts'], outfile });
  const { hooksJsonSchema } = require(path.resolve(outfile));
  fs.writeFileSync('dist/hooks.schema.json', JSON.stringify(hooksJsonSchema(), null, 2) + '\n');
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
