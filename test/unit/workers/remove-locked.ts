// Removes run folders in which a hook took the permissions away from what it made, as the user it
// runs as (tests start it as an ordinary user: root reads any folder anyway). Prints what is left.
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { createRunFolder } from '../../../src/core/runFolder';

async function main(): Promise<void> {
  const own = createRunFolder('x', true);
  execFileSync('/bin/sh', ['-c', 'mkdir "$1/x" && touch "$1/x/f" && chmod 000 "$1/x"', 'sh', own.dir]);
  const shared = createRunFolder('x', false);
  execFileSync('/bin/sh', ['-c', 'rm "$1" && mkdir "$1" && touch "$1/f" && chmod 000 "$1"', 'sh', shared.inputFile]);
  await Promise.all([own.remove(), shared.remove()]);
  console.log(JSON.stringify({ left: [own.dir, shared.inputFile].filter((file) => fs.existsSync(file)).map((file) => path.basename(file)) }));
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
