/** Where the exit tasks live: on the global object, so every bundled copy of this module shares one listener. */
const TASKS = Symbol.for('garuda-hooks.exitTasks');

type Holder = { [TASKS]?: Set<() => void> };

/** Runs `task` when this process exits, through a single 'exit' listener however often it is asked. */
export function onProcessExit(task: () => void): void {
  const holder = globalThis as Holder;
  if (!holder[TASKS]) {
    const tasks = new Set<() => void>();
    holder[TASKS] = tasks;
    process.once('exit', () => tasks.forEach((run) => run()));
  }
  holder[TASKS].add(task);
}
