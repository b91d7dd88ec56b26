// Loads a bundle as the extension's entry point does and prints how: `load-bundle FILE`. It stays up
// long enough for the code cache to be written.
import { loadWithCodeCache } from '../../../src/codeCache';

const loaded = loadWithCodeCache(process.argv[2]!, 0);
console.log(JSON.stringify({ codeCache: loaded.stats.codeCache, exports: loaded.exports }));
setTimeout(() => undefined, 300);
