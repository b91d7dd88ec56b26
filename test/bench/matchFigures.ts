// What deciding costs before any hook runs: many hooks that a call does not match, many rules against a long command.
import { createHookRunner, type ToolCall } from '../../src/core/runner';
import { compileRules } from '../../src/core/rules';
import { splitCommand } from '../../src/core/shellCommand';
import { toolTarget } from '../../src/core/toolNames';
import { measure } from './harness';
import { figure, type Figure } from './report';
import { NO_SANDBOX, type BenchWorkspace } from './workspace';

const HOOKS = 1000;
const RULES = 10_000;
/** Simple commands in `compoundCommand`. */
const PARTS = 20;

/** Rules of every kind an agent's hooks use, none of which `UNMATCHED_CALLS` or `compoundCommand` meet. */
function rule(i: number): string {
  switch (i % 10) {
    case 0: return `bash(*--danger-${i}*)`;
    case 1: return `edit_file(secrets-${i}/**)`;
    case 2: return `write_file(*.generated-${i}.ts)`;
    case 3: return `mcp__server${i}__*`;
    case 4: return `fetch(domain:host-${i}.example.com)`;
    case 5: return `bash(terraform-${i} apply*)`;
    default: return `bash(tool-${i} --flag*)`;
  }
}

/** Calls of each kind of tool; a repeated bash command is split once and then read from the cache. */
const UNMATCHED_CALLS: ToolCall[] = [
  { tool: 'bash', input: { command: 'npm test -- --grep runner' } },
  { tool: 'edit_file', input: { path: 'src/core/runner.ts' } },
  { tool: 'Read', input: { file_path: 'README.md' } },
  { tool: 'fetch', input: { url: 'https://docs.example.org/guide' } },
  { tool: 'mcp__github__create_issue', input: { title: 'x' } },
];

/** 20 simple commands, with the pipes, subshells and substitutions agents write; `n` makes each one new. */
function compoundCommand(n: number): string {
  return [
    `cd packages/app-${n} && npm ci --silent && npm run build -- --mode=production | tee build.log`,
    `(cd ../lib && make -j4 all && make install PREFIX="$HOME/.local")`,
    `echo "built at $(date -u +%s) by $(whoami)" >> build.log; git add -A && git commit -m "build ${n}"`,
    `grep -rn TODO src | sort | uniq -c | head -20 > todo.txt`,
    `FOO=1 env BAR=2 node scripts/check.js --strict && sudo -u deploy rsync -a dist/ /srv/app/`,
    `timeout 30 curl -fsS https://example.com/health > /dev/null && echo ok-${n}`,
  ].join('; ');
}

export async function noMatchFigure(workspace: BenchWorkspace): Promise<Figure> {
  const hooks = Array.from({ length: HOOKS }, (_, i) => ({ tools: [rule(i), rule(i + 7)], command: `echo hook ${i}` }));
  const set = await workspace.hookSet({ preToolUse: hooks });
  if (set.active.length !== HOOKS) throw new Error(`expected ${HOOKS} active hooks, got ${set.active.length}: ${set.problems.map((p) => p.message).join('; ')}`);
  const runner = createHookRunner({ sandbox: NO_SANDBOX });
  let i = 0;
  const timing = await measure(async () => {
    const outcome = await runner.preToolUse(set, UNMATCHED_CALLS[i++ % UNMATCHED_CALLS.length]!);
    if (outcome.runs.length > 0) throw new Error(`a hook matched ${outcome.tool}`);
  }, 2000);
  return figure(`a call that matches no hook, with ${HOOKS.toLocaleString('en')} hooks configured`, timing.medianMs * 1000, 20, 'µs',
    `median of ${timing.samples} \`preToolUse\` calls of ${UNMATCHED_CALLS.length} tools (bash, file, fetch, MCP) in turn`, { medianUs: timing.medianMs * 1000, samples: timing.samples });
}

export async function manyRulesFigure(root: string): Promise<Figure> {
  const compiled = compileRules(Array.from({ length: RULES }, (_, i) => rule(i)));
  if (!compiled.ok) throw new Error(compiled.errors.join('; '));
  const parts = splitCommand(compoundCommand(0));
  if (!parts.ok || parts.commands.length < PARTS) throw new Error(`the command should have ${PARTS} parts: ${JSON.stringify(parts)}`);
  let n = 0;
  const timing = await measure(() => {
    // A new command each time: its parse is part of what matching costs.
    const target = toolTarget('bash', { command: compoundCommand(++n) }, root);
    if (compiled.matcher.matches({ tool: 'bash', target })) throw new Error('a rule matched');
  }, 2000);
  return figure(`matching ${RULES.toLocaleString('en')} rules against a ${PARTS}-part compound command`, timing.medianMs, 2, 'ms',
    `median of ${timing.samples} new commands, shell parsing included`, { medianMs: timing.medianMs, samples: timing.samples, splitForms: parts.commands.length });
}
