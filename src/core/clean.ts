// Makes text that came from a hook (its output) or from a config file (commands, rules, paths)
// safe to hand to the model and to show to a person. Everything here runs in linear time: hook
// output is untrusted and may be megabytes of hostile bytes.

const ESC = 0x1b;
const BEL = 0x07;
const CSI_8BIT = 0x9b;
const OSC_8BIT = 0x9d;
const ST_8BIT = 0x9c;
// DCS, SOS, PM and APC strings run until ST, and may carry anything in between.
const STRING_8BIT = new Set([0x90, 0x98, 0x9e, 0x9f]);
const STRING_INTRODUCERS = 'PX^_';

// Every format and default-ignorable character (bidi controls, zero-width characters, soft hyphens,
// fillers, variation selectors, tag characters): invisible or reordering, so what a person sees
// would differ from what the model reads, and `<\u00AD/x>` would slip past the tag check.
const HIDDEN = /[\p{Cf}\p{Default_Ignorable_Code_Point}]/gu;
const HIDDEN_CHAR = new RegExp(`^${HIDDEN.source}$`, 'u');

// C0 and C1 controls and DEL; tab and newline are the only ones plain text needs.
const CONTROLS = /[\x00-\x08\x0B-\x1F\x7F-\x9F]/g;

// A lone CR would let later text overwrite earlier text in a terminal; show both instead.
const LINE_BREAKS = /\r\n?|[\u2028\u2029]/g;

// A `<` that could open or close a tag: `<a`, `</a`, `< / a`, `<?xml`, `<!--`. `a < b` and `x<3`
// are left alone. No quantified part can match what follows it, so there is no backtracking blow-up.
const TAG_START = /<(?=[\p{L}_:]|\s*(?:[/?]\s*[\p{L}_:]|!))/gu;
const TAG_START_REPLACEMENT = '\u2039'; // ‹ reads like `<` but no parser takes it for one.

/** Hook output made safe for the model and for display; `limit` counts UTF-16 code units. */
export function cleanText(text: string, limit = 4000): string {
  const plain = stripEscapes(text)
    .replace(LINE_BREAKS, '\n')
    .replace(CONTROLS, '')
    .replace(HIDDEN, '')
    .replace(TAG_START, TAG_START_REPLACEMENT);
  return capText(trimLines(plain), limit);
}

/** A command, rule or path as one visible line: every control and hidden character is spelled out. */
export function cleanLine(text: string, limit = 500): string {
  const pieces = Array.from(text, escapeChar);
  const total = pieces.reduce((sum, piece) => sum + piece.length, 0);
  if (total <= limit) return pieces.join('');
  // Cut between pieces so an escape such as `\u{202E}` is never shown half-written.
  let kept = '';
  for (const piece of pieces) {
    if (kept.length + piece.length > limit) break;
    kept += piece;
  }
  return `${kept}… (+${total - kept.length} chars)`;
}

const FEEDBACK_OPEN = '<hook_feedback>\n';
const FEEDBACK_CLOSE = '\n</hook_feedback>';

/** Wraps hook output for the model; `text` must already have gone through `cleanText`. */
export function wrapFeedback(text: string): string {
  return `${FEEDBACK_OPEN}${text}${FEEDBACK_CLOSE}`;
}

/** The text `wrapFeedback` wrapped, for showing to a person; other text comes back as it is. */
export function unwrapFeedback(feedback: string): string {
  return feedback.startsWith(FEEDBACK_OPEN) && feedback.endsWith(FEEDBACK_CLOSE) ? feedback.slice(FEEDBACK_OPEN.length, -FEEDBACK_CLOSE.length) : feedback;
}

function stripEscapes(text: string): string {
  const kept: string[] = [];
  let start = 0;
  let i = 0;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c === ESC || c === CSI_8BIT || c === OSC_8BIT || STRING_8BIT.has(c)) {
      kept.push(text.slice(start, i));
      i = skipEscape(text, i);
      start = i;
    } else {
      i++;
    }
  }
  kept.push(text.slice(start));
  return kept.join('');
}

/** Index just past the escape sequence that starts at `i`. */
function skipEscape(text: string, i: number): number {
  const c = text.charCodeAt(i);
  if (c === CSI_8BIT) return skipCsi(text, i + 1);
  if (c === OSC_8BIT) return skipString(text, i + 1, true);
  if (c !== ESC) return skipString(text, i + 1, false);
  const next = text.charAt(i + 1);
  if (next === '[') return skipCsi(text, i + 2);
  if (next === ']') return skipString(text, i + 2, true);
  if (next !== '' && STRING_INTRODUCERS.includes(next)) return skipString(text, i + 2, false);
  // ESC, any intermediate bytes (`ESC ( B`, `ESC # 8`), then one final byte (`ESC c`, `ESC 7`).
  let j = i + 1;
  while (inRange(text, j, 0x20, 0x2f)) j++;
  return inRange(text, j, 0x30, 0x7e) ? j + 1 : j;
}

// A CSI that meets a byte it cannot contain ends there, so that byte (often another ESC) is
// looked at again by the caller instead of being swallowed.
function skipCsi(text: string, j: number): number {
  while (inRange(text, j, 0x30, 0x3f)) j++; // parameters, including private ones like `?25`
  while (inRange(text, j, 0x20, 0x2f)) j++; // intermediates
  return inRange(text, j, 0x40, 0x7e) ? j + 1 : j;
}

// Control strings end at ST (`ESC \` or U+009C), OSC also at BEL. Unterminated, they would swallow
// everything after them in a terminal, so they swallow it here too.
function skipString(text: string, j: number, belEnds: boolean): number {
  for (; j < text.length; j++) {
    const c = text.charCodeAt(j);
    if (c === ST_8BIT || (belEnds && c === BEL)) return j + 1;
    if (c === ESC && text.charAt(j + 1) === '\\') return j + 2;
  }
  return j;
}

function inRange(text: string, j: number, low: number, high: number): boolean {
  const c = text.charCodeAt(j); // NaN past the end, which is in no range
  return c >= low && c <= high;
}

// trimEnd and a manual pop rather than `/\s+$/`, which is quadratic on long inner runs of spaces.
function trimLines(text: string): string {
  const lines = text.split('\n').map((line) => line.trimEnd());
  while (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  return lines.join('\n');
}

function capText(text: string, limit: number): string {
  if (text.length <= limit) return text;
  let cut = Math.max(0, limit);
  if (cut > 0 && isHighSurrogate(text.charCodeAt(cut - 1))) cut--;
  const kept = text.slice(0, cut).trimEnd();
  const mark = `… [truncated: ${text.length - kept.length} more characters]`;
  return kept === '' ? mark : `${kept}\n${mark}`;
}

function isHighSurrogate(c: number): boolean {
  return c >= 0xd800 && c <= 0xdbff;
}

const NAMED_ESCAPES: Record<string, string> = {
  '\\': '\\\\',
  '\r': '\\r',
  '\n': '\\n',
  '\t': '\\t',
  '\x1b': '\\e',
};

// Line and paragraph separators break lines in some renderers; lone surrogates render as nothing
// useful. Both are spelled out like the hidden characters.
const SPELLED_OUT = /^[\u2028\u2029\uD800-\uDFFF]$/u;

function escapeChar(ch: string): string {
  const named = NAMED_ESCAPES[ch];
  if (named !== undefined) return named;
  const cp = ch.codePointAt(0) ?? 0;
  if (cp < 0x20 || (cp >= 0x7f && cp <= 0x9f)) return `\\x${hex(cp, 2)}`;
  if (HIDDEN_CHAR.test(ch) || SPELLED_OUT.test(ch)) return `\\u{${hex(cp, 4)}}`;
  return ch;
}

function hex(cp: number, width: number): string {
  return cp.toString(16).toUpperCase().padStart(width, '0');
}
