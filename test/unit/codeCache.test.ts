import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { bwrapSandbox, tempDir, worker } from './helpers';

/** A bundle that needs its require, module and dirname to work, as esbuild's output does. */
const BUNDLE = `
const path = require('node:path');
const sibling = require('./sibling.js');
function answer() { return 6 * 7; }
module.exports = { answer: answer(), sibling, dir: path.basename(__dirname) };
`;

describe('loading the extension with the code cache', () => {
  let dir: string;
  let bundle: string;
  beforeEach(async () => {
    dir = await tempDir();
    bundle = path.join(dir, 'extension.js');
    await fs.writeFile(bundle, BUNDLE);
    await fs.writeFile(path.join(dir, 'sibling.js'), 'module.exports = "beside";');
  });
  afterEach(() => fs.rm(dir, { recursive: true, force: true }));

  /** Each load is a new process, as each editor start is. */
  const load = (argv: string[] = [process.execPath, worker('load-bundle'), bundle]) => new Promise<{ codeCache: string; exports: unknown }>((resolve, reject) => {
    execFile(argv[0]!, argv.slice(1), (error, stdout, stderr) => (error ? reject(new Error(`${error.message}\n${stderr}`)) : resolve(JSON.parse(stdout))));
  });
  const caches = async () => (await fs.readdir(dir)).filter((name) => name.endsWith('.cache'));
  const exported = () => ({ answer: 42, sibling: 'beside', dir: path.basename(dir) });

  it('runs the bundle with its own require, module and folder, then writes a cache that the next start uses', async () => {
    assert.deepEqual(await load(), { codeCache: 'none', exports: exported() });
    assert.equal((await caches()).length, 1);
    assert.deepEqual(await load(), { codeCache: 'used', exports: exported() });
  });

  it('compiles the bundle when V8 rejects its cache, and writes a good one', async () => {
    await load();
    const [cache] = await caches();
    await fs.writeFile(path.join(dir, cache!), 'not a V8 code cache');
    assert.deepEqual(await load(), { codeCache: 'rejected', exports: exported() });
    assert.deepEqual(await load(), { codeCache: 'used', exports: exported() });
  });

  it('never uses the cache of another bundle, and removes it once the new one has its own', async () => {
    await load();
    const [old] = await caches();
    // The same length, so only the content tells them apart.
    await fs.writeFile(bundle, BUNDLE.replace('6 * 7', '7 * 6'));
    assert.deepEqual(await load(), { codeCache: 'none', exports: exported() });
    const [current] = await caches();
    assert.notEqual(current, old);
    assert.equal((await caches()).length, 1);
  });

  it('loads from a folder it cannot write to, without a cache', async () => {
    // Read-only even for root: bwrap mounts the folder so.
    const { program } = bwrapSandbox();
    const readOnly = [program, '--ro-bind', '/', '/', '--dev', '/dev', '--', process.execPath, worker('load-bundle'), bundle];
    assert.deepEqual(await load(readOnly), { codeCache: 'none', exports: exported() });
    assert.deepEqual(await load(readOnly), { codeCache: 'none', exports: exported() });
    assert.deepEqual(await fs.readdir(dir), ['extension.js', 'sibling.js']);
  });
});
