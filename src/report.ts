// Markdown for the read-only documents that show hook runs (an audit entry, a test call's report).
// Every value is cleaned here, whatever wrote it: the audit file is plain text anyone can append to.
import { cleanLine, cleanText } from './core/clean';

/** What the tree and the reports say about how a run ended. */
export interface RunStatus {
  readonly exitCode: number | null;
  readonly signal: string | null;
  readonly timedOut: boolean;
}

/** Fields shown as their own fenced section rather than as a table row: long, multi-line, or code. */
const SECTIONS = ['command', 'reason', 'feedback', 'warning', 'stdout', 'stderr'] as const;

/** `exit 2`, `timed out`, `SIGKILL`, or `not started` (a run the team policy refused). */
export function exitStatus(run: RunStatus): string {
  if (run.timedOut) return 'timed out';
  if (run.signal) return run.signal;
  return run.exitCode === null ? 'not started' : `exit ${run.exitCode}`;
}

/** `14:03:22` today, `2026-11-29 14:03:22` on other days, in local time; the text itself when not a date. */
export function clockTime(iso: string, now = new Date()): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return cleanLine(iso, 40);
  const pad = (n: number) => String(n).padStart(2, '0');
  const time = `${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`;
  const sameDay = date.toDateString() === now.toDateString();
  return sameDay ? time : `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ${time}`;
}

/**
 * Every field of a record (an audit entry, a hook run): scalars as a table in their JSON names, so
 * they can be found in audit.jsonl, then the long ones as fenced sections under `level` headings.
 */
export function recordMarkdown(record: object, level = '##'): string {
  const fields = Object.entries(record).filter(([, value]) => value !== undefined && value !== '');
  const rows = fields.filter(([key]) => !isSection(key)).map(([key, value]) => [cell(key), cell(asText(value))] as const);
  // The names are padded to one width, so the table reads as two columns in the editor too.
  const width = Math.max('field'.length, ...rows.map(([key]) => key.length));
  const line = (key: string, value: string) => `| ${key.padEnd(width)} | ${value} |`;
  const table = [line('field', 'value'), `|${'-'.repeat(width + 2)}|-------|`, ...rows.map(([key, value]) => line(key, value))];
  const parts = rows.length > 0 ? [table.join('\n')] : [];
  for (const key of SECTIONS) {
    const value = (record as Record<string, unknown>)[key];
    if (typeof value !== 'string' || value === '') continue;
    // A command is shown exactly, escapes spelled out; output is cleaned as the model would get it.
    parts.push(`${level} ${key}\n\n${key === 'command' ? fence(cleanLine(value, 20_000), 'sh') : fence(cleanText(value), 'text')}`);
  }
  return parts.join('\n\n');
}

/** Pretty JSON in printable ASCII: anything else is a `\\uXXXX` escape, so nothing hides and it still parses. */
export function asciiJson(value: unknown): string {
  const text = JSON.stringify(value, null, 2) ?? String(value);
  return text.replace(/[^\x20-\x7e\n]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** A fenced block the text cannot close: the fence is longer than any run of backticks inside. */
export function fence(text: string, language = ''): string {
  const longest = Math.max(2, ...Array.from(text.matchAll(/`+/g), (m) => m[0].length));
  const marks = '`'.repeat(longest + 1);
  return `${marks}${language}\n${text}\n${marks}`;
}

/** One table cell: one visible line, a pipe cannot end the cell. */
function cell(text: string): string {
  return cleanLine(text, 300).replace(/\|/g, '\\|');
}

function isSection(key: string): boolean {
  return (SECTIONS as readonly string[]).includes(key);
}

function asText(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value) ?? String(value);
}
