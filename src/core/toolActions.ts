// What the guarded tools do once their guards let them: run a command, read, write or edit a file.
// Every outcome, failures included, is text for the model; nothing here throws at it.
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { cleanText } from './clean';
import { runCommand, type ExecResult } from './executor';

/** What the model reads, and what postToolUse hooks get as the call's `result`. */
export interface ActionResult {
  /** False when the action did not happen: post hooks then have nothing to check. */
  readonly ok: boolean;
  readonly text: string;
  readonly result?: unknown;
}

export interface CommandRequest {
  readonly command: string;
  readonly cwd: string;
  readonly timeoutMs: number;
  readonly env: NodeJS.ProcessEnv;
  readonly signal?: AbortSignal;
}

/** Bytes kept per stream, then characters shown per stream: enough for a test run's summary. */
export const COMMAND_OUTPUT_BYTES = 32_000;
const COMMAND_OUTPUT_CHARS = 16_000;
export const READ_LIMIT_CHARS = 100_000;

/** Runs `sh -c command` in its own process group: a timeout or a cancel ends everything it started. */
export async function runCommandAction(request: CommandRequest): Promise<ActionResult> {
  const run = await runCommand({ ...request, stdin: '', outputLimit: COMMAND_OUTPUT_BYTES });
  const stdout = cleanText(run.stdout, COMMAND_OUTPUT_CHARS);
  const stderr = cleanText(run.stderr, COMMAND_OUTPUT_CHARS);
  const sections = [
    commandStatus(run, request.timeoutMs),
    ...(stdout ? [`stdout:\n${stdout}${run.stdoutTruncated ? `\n[cut at ${COMMAND_OUTPUT_BYTES} bytes]` : ''}`] : []),
    ...(stderr ? [`stderr:\n${stderr}${run.stderrTruncated ? `\n[cut at ${COMMAND_OUTPUT_BYTES} bytes]` : ''}`] : []),
  ];
  if (!stdout && !stderr) sections.push('(no output)');
  const result = { exitCode: run.exitCode, signal: run.signal, timedOut: run.timedOut, cancelled: run.cancelled === true, stdout, stderr };
  return { ok: run.spawnError === undefined, text: sections.join('\n\n'), result };
}

export async function readFileAction(file: string, display: string): Promise<ActionResult> {
  const text = await fs.readFile(file, 'utf8').catch((error: NodeJS.ErrnoException) => fileError(error, display));
  if (typeof text !== 'string') return text;
  if (text.includes('\0')) return { ok: true, text: `${display} is a binary file: not shown.`, result: { binary: true } };
  const shown = text.length > READ_LIMIT_CHARS ? `${text.slice(0, READ_LIMIT_CHARS)}\n[truncated: the file has ${text.length} characters; this is the first ${READ_LIMIT_CHARS}]` : text;
  return { ok: true, text: shown, result: { characters: text.length } };
}

/** Creates missing parent folders; replaces the whole content. */
export async function writeFileAction(file: string, content: string, display: string): Promise<ActionResult> {
  const existed = await fs.stat(file).then((stat) => stat.isFile(), () => false);
  try {
    await fs.mkdir(path.dirname(file), { recursive: true });
    await fs.writeFile(file, content);
  } catch (error) {
    return fileError(error as NodeJS.ErrnoException, display);
  }
  const bytes = Buffer.byteLength(content);
  return { ok: true, text: `${existed ? 'Replaced the content of' : 'Created'} ${display} (${bytes} bytes).`, result: { bytes, created: !existed } };
}

/** Replaces `oldString`, which must occur exactly once: a guess at which occurrence is meant would edit the wrong code. */
export async function editFileAction(file: string, oldString: string, newString: string, display: string): Promise<ActionResult> {
  const text = await fs.readFile(file, 'utf8').catch((error: NodeJS.ErrnoException) => fileError(error, display));
  if (typeof text !== 'string') return text;
  if (oldString === newString) return { ok: false, text: `old_string and new_string are the same: ${display} was not changed.` };
  const at = text.indexOf(oldString);
  if (at === -1) {
    return { ok: false, text: `old_string was not found in ${display}: nothing was changed. Read the file again and copy the exact text, including whitespace and line breaks.` };
  }
  const count = countOccurrences(text, oldString);
  if (count > 1) {
    return { ok: false, text: `old_string occurs ${count} times in ${display}: nothing was changed. Include more of the surrounding lines so that it occurs exactly once.` };
  }
  // Slices, not String.replace, which would read `$&` and `$1` in the new text as patterns.
  const edited = text.slice(0, at) + newString + text.slice(at + oldString.length);
  try {
    await fs.writeFile(file, edited);
  } catch (error) {
    return fileError(error as NodeJS.ErrnoException, display);
  }
  const line = text.slice(0, at).split('\n').length;
  return { ok: true, text: `Edited ${display} at line ${line}.`, result: { line } };
}

function commandStatus(run: ExecResult, timeoutMs: number): string {
  if (run.spawnError !== undefined) return `The command could not start: ${run.spawnError}`;
  if (run.cancelled) return 'Cancelled: the command and everything it started were stopped.';
  if (run.timedOut) return `Timed out after ${timeoutMs} ms: the command and everything it started were stopped.`;
  if (run.signal) return `Killed by ${run.signal}.`;
  return `Exit code ${run.exitCode}.`;
}

/** Overlapping ones count: `aa` occurs twice in `aaa`, and either could be the one meant. */
function countOccurrences(text: string, part: string): number {
  let count = 0;
  for (let at = text.indexOf(part); at !== -1; at = text.indexOf(part, at + 1)) count++;
  return count;
}

function fileError(error: NodeJS.ErrnoException, display: string): ActionResult {
  switch (error.code) {
    case 'ENOENT':
      return { ok: false, text: `${display} does not exist.` };
    case 'EISDIR':
      return { ok: false, text: `${display} is a folder, not a file.` };
    case 'EACCES':
    case 'EPERM':
      return { ok: false, text: `${display} cannot be accessed: permission denied.` };
    default:
      return { ok: false, text: `${display} could not be used: ${error.message}` };
  }
}
