// Runs one command in the OS sandbox and waits for it: `run-sandboxed ROOT COMMAND`. Tests kill it.
import { runCommand } from '../../../src/core/executor';
import { detectSandbox, sandboxedCommand } from '../../../src/core/sandbox';

const [root, command] = process.argv.slice(2);
const { argv } = sandboxedCommand(detectSandbox(), command!, { root: root!, tempDir: root!, network: false });
runCommand({ command: command!, argv, cwd: root!, env: { PATH: process.env.PATH }, stdin: '', timeoutMs: 600_000 }).catch((error) => {
  console.error(error);
  process.exit(1);
});
