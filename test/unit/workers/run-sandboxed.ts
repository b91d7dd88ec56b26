// Runs one command in the OS sandbox and waits for it: `run-sandboxed ROOT COMMAND [MODE]`, MODE
// being "a warm sandbox" or a sandbox per run. Tests kill it.
import { runCommand } from '../../../src/core/executor';
import { detectSandbox, withSandboxedCommand } from '../../../src/core/sandbox';
import { WarmSandboxes } from '../../../src/core/warmSandbox';

const [root, command, mode] = process.argv.slice(2);
const sandbox = detectSandbox();
const request = { command: command!, env: { PATH: process.env.PATH }, stdin: '', timeoutMs: 600_000 };
const run = async () => {
  if (mode === 'a warm sandbox' && sandbox.name === 'bwrap') {
    return new WarmSandboxes().run({ program: sandbox.program, root: root!, network: false, source: 'user' }, request);
  }
  return withSandboxedCommand(sandbox, command!, { root: root!, tempDir: root!, network: false }, ({ argv, fds }) => runCommand({ ...request, argv, cwd: root!, fds }));
};
run().catch((error) => {
  console.error(error);
  process.exit(1);
});
