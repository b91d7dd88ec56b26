// The extension's entry point (package.json "main"): the bundle, dist/extension.js, loaded with V8's
// code cache. Its exports, plus how the load went for the benchmark.
import * as path from 'node:path';
import { loadWithCodeCache } from './codeCache';

const loaded = loadWithCodeCache(path.join(__dirname, 'extension.js'));
module.exports = { ...(loaded.exports as object), loadStats: loaded.stats };
