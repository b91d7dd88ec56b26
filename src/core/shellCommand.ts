// Splits a shell command line into the simple commands it runs, so a rule like `bash(git push*)`
// sees `git push` inside `cd d && git push`, `$(git push)`, `sudo git push` or `bash -c 'git push'`.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { goString, isNode, nodesOf, nodeType, parseShell, walk, type GoNode } from './shellAst';

export type SplitResult = { ok: true; commands: string[] } | { ok: false; error: string };

/**
 * Every simple command in `source`, one normalized string each (literal quoting removed, words
 * joined by single spaces, leading assignments dropped), followed by the forms a wrapper, a path or
 * a `bash -c` string hides. Duplicates are dropped. The returned array is frozen: results are cached.
 */
export function splitCommand(source: string): SplitResult {
  const cached = recentResults.get(source);
  if (cached) {
    recentResults.delete(source);
    recentResults.set(source, cached);
    return cached;
  }
  const result = splitUncached(source);
  if (result.ok) Object.freeze(result.commands);
  recentResults.set(source, result);
  if (recentResults.size > RECENT_RESULTS_LIMIT) {
    recentResults.delete(recentResults.keys().next().value as string);
  }
  return result;
}

/** mvdan-sh's entry point: the parser; its trees are read through shellAst. */
interface ShellSyntax {
  NewParser(): { Parse(source: string, name: string): unknown };
}

/** A word as the command will see it; `literal` when no expansion can change it at run time. */
interface ShellWord { text: string; literal: boolean }

/** Programs that run their arguments as a command, with the options that consume the next word. */
const WRAPPERS = new Map<string, { valueOptions: string[]; skipsAssignments?: true; operands?: number }>([
  ['env', { valueOptions: ['-u', '--unset', '-C', '--chdir'], skipsAssignments: true }],
  ['command', { valueOptions: [] }],
  ['builtin', { valueOptions: [] }],
  ['exec', { valueOptions: ['-a'] }],
  ['nohup', { valueOptions: [] }],
  ['sudo', { valueOptions: ['-u', '--user', '-g', '--group', '-C', '-D', '-p', '-r', '-t', '-T', '-U'] }],
  ['time', { valueOptions: ['-f', '--format', '-o', '--output'] }],
  ['nice', { valueOptions: ['-n', '--adjustment'] }],
  ['timeout', { valueOptions: ['-s', '--signal', '-k', '--kill-after'], operands: 1 }],
  ['xargs', { valueOptions: ['-a', '-d', '-E', '-I', '-L', '-n', '-P', '-s'] }],
]);
const SHELLS = new Set(['sh', 'bash', 'zsh', 'dash', 'ksh']);
const SHELL_VALUE_OPTIONS = new Set(['-o', '+o', '-O', '+O', '--rcfile', '--init-file']);
const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*=/;
const UNQUOTED_ESCAPE = /\\(.)/gs;
const DOUBLE_QUOTED_ESCAPE = /\\([$`"\\])/g;
const ANSI_C_ESCAPE = /\\(x[0-9a-fA-F]{1,2}|u[0-9a-fA-F]{1,4}|U[0-9a-fA-F]{1,8}|[0-7]{1,3}|.)/gs;
const ANSI_C_NAMED: Record<string, string> = {
  a: '\x07', b: '\b', e: '\x1b', E: '\x1b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v',
};
const RECENT_RESULTS_LIMIT = 256;

const recentResults = new Map<string, SplitResult>();
let parser: ReturnType<ShellSyntax['NewParser']> | undefined;

/** Loads the 1.5 MB parser on first use; the bundler ships it beside the bundle as shell-parser.js. */
function loadParser(): NonNullable<typeof parser> {
  if (!parser) {
    const bundled = path.join(__dirname, 'shell-parser.js');
    const { syntax } = (fs.existsSync(bundled) ? require(bundled) : require('mvdan-sh')) as { syntax: ShellSyntax };
    parser = syntax.NewParser();
  }
  return parser;
}

function splitUncached(source: string): SplitResult {
  const shellParser = loadParser();
  let file: GoNode;
  try {
    file = parseShell(shellParser, source);
  } catch (e) {
    const error = e as { Error?: () => string };
    return { ok: false, error: error.Error ? error.Error() : String(e) };
  }
  // Offsets are in bytes of the UTF-8 source.
  const bytes = Buffer.from(source, 'utf8');
  const sourceOf = (node: GoNode) => bytes.toString('utf8', node.Pos().Offset(), node.End().Offset());
  /** Renders word parts; parts that may hold commands (`$(…)`, `${…}`) go to `nested`. */
  const renderParts = (parts: GoNode[], quoted: boolean, nested: GoNode[]): ShellWord => {
    let text = '';
    let literal = true;
    for (const part of parts) {
      switch (nodeType(part)) {
        case 'Lit':
          text += goString(part.Value).replace(quoted ? DOUBLE_QUOTED_ESCAPE : UNQUOTED_ESCAPE, '$1');
          break;
        case 'SglQuoted': {
          const value = goString(part.Value);
          text += part.Dollar ? decodeAnsiC(value) : value;
          break;
        }
        case 'DblQuoted': {
          const inner = renderParts(nodesOf(part.Parts), true, nested);
          text += inner.text;
          literal &&= inner.literal;
          break;
        }
        default:
          text += sourceOf(part);
          literal = false;
          nested.push(part);
      }
    }
    return { text, literal };
  };
  const renderWord = (word: GoNode, nested: GoNode[]): ShellWord => {
    const parts = nodesOf(word.Parts);
    // A word of plain text only, like mvdan/sh's Word.Lit().
    return parts.length > 0 && parts.every((part) => nodeType(part) === 'Lit')
      ? { text: parts.map((part) => goString(part.Value)).join('').replace(UNQUOTED_ESCAPE, '$1'), literal: true }
      : renderParts(parts, false, nested);
  };

  // A command's words are read once and the walk only goes on into what may hold more commands.
  // Commands are collected first and expanded after, since expanding parses again.
  const found: ShellWord[][] = [];
  const visit = (node: GoNode): boolean => {
    const type = nodeType(node);
    const nested: GoNode[] = [];
    if (type === 'CallExpr') {
      found.push(nodesOf(node.Args).map((word) => renderWord(word, nested)));
      nested.push(...nodesOf(node.Assigns));
    } else if (type === 'DeclClause') {
      const args = nodesOf(node.Args);
      const words = args.map((arg): ShellWord =>
        arg.Naked && isNode(arg.Value) ? renderWord(arg.Value, []) : { text: sourceOf(arg), literal: false });
      found.push([{ text: goString((node.Variant as GoNode).Value), literal: true }, ...words]);
      nested.push(...args);
    } else {
      return true;
    }
    for (const part of nested) walk(part, visit);
    return false;
  };
  walk(file, visit);

  const commands = new Set<string>();
  for (const words of found) {
    const error = addForms(words.filter((word) => word.text !== ''), commands);
    if (error) return { ok: false, error };
  }
  return { ok: true, commands: [...commands] };
}

/** Adds the command and the forms it hides; returns an error when its program or an inner script cannot be read. */
function addForms(words: ShellWord[], commands: Set<string>): string | undefined {
  if (words.length === 0) return undefined;
  // `$G push` or `git${IFS}push` runs whatever the expansion gives: no rule can tell which program that is.
  if (!words[0].literal) return `the program name "${words[0].text}" is known only at run time`;
  commands.add(words.map((word) => word.text).join(' '));
  const program = words[0].text;
  const slash = program.lastIndexOf('/');
  if (slash >= 0 && slash < program.length - 1) {
    const error = addForms([{ text: program.slice(slash + 1), literal: words[0].literal }, ...words.slice(1)], commands);
    if (error) return error;
  }
  const wrapped = unwrap(words);
  if (wrapped) return addForms(wrapped, commands);
  const script = innerScript(words);
  if (script === undefined) return undefined;
  // Deny rules cannot see into a script that exists only at run time, so the command counts as unreadable.
  if (script === RUNTIME_SCRIPT) return `"${program}" runs a script that is only known at run time`;
  const inner = splitCommand(script);
  if (!inner.ok) return `in "${program}" script: ${inner.error}`;
  for (const command of inner.commands) commands.add(command);
  return undefined;
}

/** The command a wrapper like `sudo -u x` or `timeout 5` runs, or undefined if `words` has no wrapper. */
function unwrap(words: ShellWord[]): ShellWord[] | undefined {
  const wrapper = WRAPPERS.get(words[0].text);
  if (!wrapper) return undefined;
  let next = 1;
  while (next < words.length) {
    const word = words[next].text;
    if (word === '--') {
      next++;
      break;
    }
    if (!word.startsWith('-') && !(wrapper.skipsAssignments && ASSIGNMENT.test(word))) break;
    next += wrapper.valueOptions.includes(word) ? 2 : 1;
  }
  next += wrapper.operands ?? 0;
  return next < words.length ? words.slice(next) : undefined;
}

const RUNTIME_SCRIPT = Symbol('runtime script');

/**
 * The literal script of `bash -c STR` or `eval STR…`; RUNTIME_SCRIPT when the script is an expansion
 * (`eval "$X"`, `bash -c "$(curl …)"`) or comes from stdin (`curl … | sh`); undefined for none.
 */
function innerScript(words: ShellWord[]): string | typeof RUNTIME_SCRIPT | undefined {
  const program = words[0].text;
  if (program === 'eval') {
    const args = words.slice(words[1]?.text === '--' ? 2 : 1);
    if (args.length === 0) return undefined;
    return args.every((word) => word.literal) ? args.map((word) => word.text).join(' ') : RUNTIME_SCRIPT;
  }
  if (!SHELLS.has(program)) return undefined;
  let runsString = false;
  for (let next = 1; next < words.length; next++) {
    const word = words[next].text;
    if (SHELL_VALUE_OPTIONS.has(word)) {
      next++;
    } else if (/^-[A-Za-z]*c/.test(word)) {
      runsString = true;
    } else if (!/^[-+]/.test(word)) {
      // The first operand is the script when -c was given, a script file otherwise.
      if (!runsString) return undefined;
      return words[next].literal ? word : RUNTIME_SCRIPT;
    }
  }
  // No script operand: the shell reads its commands from stdin.
  return RUNTIME_SCRIPT;
}

function decodeAnsiC(value: string): string {
  return value.replace(ANSI_C_ESCAPE, (_, escape: string) => {
    const code = /^[0-7]/.test(escape) ? parseInt(escape, 8)
      : /^[xuU]./.test(escape) ? parseInt(escape.slice(1), 16) : undefined;
    if (code === undefined) return ANSI_C_NAMED[escape] ?? escape;
    return code <= 0x10ffff ? String.fromCodePoint(code) : '\\' + escape;
  });
}
