// Text patterns indexed so that thousands of them cost a few map lookups per text. Each pattern
// carries a value (a hook's position, or just `true`) that a search hands back when it matches.

/** A compiled pattern and what it stands for. */
export interface Entry<T> {
  readonly regex: RegExp;
  readonly value: T;
}

/** What a search calls with each matching value; returning true ends the search. */
export type Visit<T> = (value: T) => boolean;

const REGEX_SPECIAL = /[.*+?^${}()|[\]\\]/g;

/**
 * Wildcard patterns (`*` any text, `?` one character, nothing else special), indexed by literal
 * prefix (`git push*`), else by a three-character piece of their longest literal part that the text
 * must contain (`*--force*`).
 */
export class WildcardIndex<T> {
  private readonly byPrefix = new PrefixMap<Entry<T>>();
  private readonly byTrigram = new Map<string, Entry<T>[]>();
  private readonly unindexed: Entry<T>[] = [];
  /** Every pattern's value, in the order added. */
  readonly values: T[] = [];

  get empty(): boolean { return this.values.length === 0; }

  add(pattern: string, value: T): void {
    this.values.push(value);
    // Claude Code's prefix form `git push:*`.
    const wildcard = pattern.endsWith(':*') ? pattern.slice(0, -2) + '*' : pattern;
    const source = wildcard.split(/([*?])/).map((piece) =>
      piece === '*' ? '.*' : piece === '?' ? '.' : piece.replace(REGEX_SPECIAL, '\\$&')).join('');
    const entry = { regex: new RegExp(`^${source}$`, 's'), value };
    const literals = wildcard.split(/[*?]/);
    if (literals[0] !== '') return this.byPrefix.add(literals[0], entry);
    const longest = literals.reduce((a, b) => (b.length > a.length ? b : a));
    if (longest.length < 3) {
      this.unindexed.push(entry);
      return;
    }
    // The piece with the fewest patterns so far spreads `*danger1*`, `*danger2*`… over many buckets.
    let trigram = longest.slice(0, 3);
    for (let start = 1; start + 3 <= longest.length; start++) {
      const candidate = longest.slice(start, start + 3);
      if ((this.byTrigram.get(candidate)?.length ?? 0) < (this.byTrigram.get(trigram)?.length ?? 0)) trigram = candidate;
    }
    pushTo(this.byTrigram, trigram, entry);
  }

  /** Visits the value of each pattern that matches all of `text`; true when `found` ended the search. */
  find(text: string, found: Visit<T>): boolean {
    const hit = (entry: Entry<T>) => entry.regex.test(text) && found(entry.value);
    if (this.byPrefix.some(text, hit)) return true;
    for (let start = 0; this.byTrigram.size > 0 && start + 3 <= text.length; start++) {
      if (this.byTrigram.get(text.slice(start, start + 3))?.some(hit)) return true;
    }
    return this.unindexed.some(hit);
  }
}

/** Values keyed by a literal prefix of the texts they may match. */
export class PrefixMap<T> {
  private readonly byPrefix = new Map<string, T[]>();
  private prefixLengths: number[] = [];

  add(prefix: string, value: T): void {
    pushTo(this.byPrefix, prefix, value);
    if (!this.prefixLengths.includes(prefix.length)) {
      this.prefixLengths = [...this.prefixLengths, prefix.length].sort((a, b) => a - b);
    }
  }

  /** Whether `test` holds for a value whose prefix starts `text`. */
  some(text: string, test: (value: T) => boolean): boolean {
    for (const length of this.prefixLengths) {
      if (length > text.length) return false;
      if (this.byPrefix.get(text.slice(0, length))?.some(test)) return true;
    }
    return false;
  }
}

export function pushTo<T>(buckets: Map<string, T[]>, key: string, value: T): void {
  const bucket = buckets.get(key);
  if (bucket) bucket.push(value);
  else buckets.set(key, [value]);
}
