// Finds the file positions in a check's output (compilers, linters, test runners), so the editor can
// show hook feedback where the code is. Pure: the editor turns these into diagnostics. The input is
// hook feedback, already capped by cleanText, so the worst cases of these regexes stay small.

export type FeedbackSeverity = 'error' | 'warning' | 'info';

/** One problem a check reported at a place in a file. `line` and `column` count from 1. */
export interface FeedbackLocation {
  /** As written in the output: absolute, or relative to the folder the hook ran in. */
  readonly file: string;
  readonly line: number;
  readonly column?: number;
  readonly severity: FeedbackSeverity;
  readonly message: string;
  /** The rule or error code, when the output names one (`no-var`, `TS2322`, `E0425`). */
  readonly code?: string;
}

/**
 * Every located problem in `text`, in order. Understood: `path:line[:col]: message` (gcc, clang, Go,
 * mypy, ruff, flake8, ShellCheck, ESLint's unix format), `path:line:col - message` (tsc --pretty),
 * `path(line[,col]): message` (tsc), ESLint's stylish blocks and rustc's ` --> path:line:col` lines.
 */
export function parseFeedbackLocations(text: string): FeedbackLocation[] {
  const found: FeedbackLocation[] = [];
  // ESLint's stylish format names the file once, then lists indented `line:col severity message rule` rows.
  let stylishFile: string | undefined;
  // rustc puts the message on the line before ` --> path:line:col`.
  let rustHeadline: { severity: FeedbackSeverity; code?: string; message: string } | undefined;
  for (const line of text.split('\n')) {
    const rust = RUST_LOCATION.exec(line);
    if (rust && rustHeadline) {
      found.push({ file: rust[1]!, ...position(rust[2]!, rust[3]), ...rustHeadline });
      rustHeadline = undefined;
      continue;
    }
    const headline = RUST_HEADLINE.exec(line);
    if (headline) rustHeadline = { severity: severityOf(headline[1]!), ...(headline[2] && { code: headline[2] }), message: headline[3]!.trim() };

    const row = STYLISH_ROW.exec(line);
    if (row && stylishFile) {
      found.push({ file: stylishFile, ...position(row[1]!, row[2]), severity: severityOf(row[3]!), ...splitRule(row[4]!) });
      continue;
    }
    const located = TSC_LOCATION.exec(line) ?? COLON_LOCATION.exec(line);
    if (located && isFileName(located[1]!)) {
      const detail = readMessage(located[4]!);
      if (detail.message) found.push({ file: located[1]!, ...position(located[2]!, located[3]), ...detail });
      stylishFile = undefined;
      continue;
    }
    // Any unindented line may name the file: only a stylish row right after it makes it one.
    stylishFile = /^\S/.test(line) ? line.trim() : undefined;
  }
  return found;
}

/** The severity of feedback without positions: error when it mentions errors or failures, else warning when it mentions warnings, else info. */
export function feedbackSeverity(text: string): FeedbackSeverity {
  if (/\b(errors?|fail(s|ed|ing|ure)?)\b/i.test(text)) return 'error';
  return /\bwarn(ings?)?\b/i.test(text) ? 'warning' : 'info';
}

// `path(3,5): rest` and `path(3): rest`; the path may contain spaces because the `(n,n):` is distinctive.
const TSC_LOCATION = /^(\S[^()]*?)(?<!\s)\((\d+)(?:,(\d+))?(?:,\d+,\d+)?\): *(.*)$/;
// `path:3:5: rest`, `path:3: rest` and tsc --pretty's `path:3:5 - rest`. No spaces in the path, so prose
// such as "In file included from a.c:1:" is not taken for a location.
const COLON_LOCATION = /^(\S+?):(\d+)(?::(\d+))?(?::| -) *(.*)$/;
const STYLISH_ROW = /^\s+(\d+):(\d+)\s+(error|warning)\s+(.+)$/;
const RUST_HEADLINE = /^(error|warning)(?:\[(\w+)\])?: (.+)$/;
const RUST_LOCATION = /^\s*--> (.+?):(\d+):(\d+)$/;
// A leading severity, with rustc's `[E0425]`, tsc's `TS2322` or mypy's `error:` forms.
const LEADING_SEVERITY = /^(fatal error|error|warning|warn|note|info|hint)(?:\[(\w+)\]| (TS\d+))?(?::\s*|\s+)(.*)$/i;
// ESLint's unix format ends with `[Error/no-var]`.
const TRAILING_SEVERITY = /^(.*?)\s*\[(Error|Warning)\/([^\]]+)\]$/;

function position(line: string, column: string | undefined): { line: number; column?: number } {
  // ESLint reports file-level problems at 0:0; editors count from 1.
  return { line: Math.max(1, Number(line)), ...(column !== undefined && { column: Math.max(1, Number(column)) }) };
}

function readMessage(rest: string): { severity: FeedbackSeverity; message: string; code?: string } {
  const trimmed = rest.trim();
  const leading = LEADING_SEVERITY.exec(trimmed);
  if (leading) {
    const code = leading[2] ?? leading[3];
    return { severity: severityOf(leading[1]!), message: leading[4]!.trim(), ...(code && { code }) };
  }
  const trailing = TRAILING_SEVERITY.exec(trimmed);
  if (trailing) return { severity: severityOf(trailing[2]!), message: trailing[1]!, code: trailing[3]! };
  // Compilers that print no severity (Go, ruff, flake8, pytest) report problems.
  return { severity: 'error', message: trimmed };
}

function severityOf(word: string): FeedbackSeverity {
  const lower = word.toLowerCase();
  if (lower.includes('error')) return 'error';
  return lower.startsWith('warn') ? 'warning' : 'info';
}

/** Stylish aligns the rule id after two or more spaces; a parse error has no rule. */
function splitRule(rest: string): { message: string; code?: string } {
  const match = /^(.*\S)\s{2,}(\S+)$/.exec(rest.trim());
  return match ? { message: match[1]!, code: match[2]! } : { message: rest.trim() };
}

/** Excludes times (`12:30:45`) and URLs (`http://host:8080`) that look like `name:number`. */
function isFileName(name: string): boolean {
  return !/^\d+$/.test(name) && !name.includes('://');
}
