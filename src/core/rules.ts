// Permission rules, the `tools` entries of a hook: `tool` or `tool(pattern)`, e.g. `bash(git push*)`,
// `edit_file(src/**)`, `fetch(domain:example.com)`, `mcp__github__*`, `*`.
import picomatch from 'picomatch';
import { splitCommand } from './shellCommand';
import { BASH_TOOL, canonicalToolName, FETCH_TOOL, isPathTool, PATTERN_TOOLS, type ToolTarget } from './toolNames';

/** A parsed rule: `tool` is a canonical tool name or a glob on tool names. */
export interface Rule { text: string; tool: string; pattern: string | null }
/** A tool call as rules see it: the tool name (any agent's spelling) and what the call acts on. */
export interface TargetedCall { tool: string; target: ToolTarget }
/**
 * Whether a hook applies to a call. A command target is split into its simple commands once per
 * target object, however many rules and hooks look at it: build the target once, share it.
 */
export interface CallMatcher { matches(call: TargetedCall): boolean }

export type ParseRuleResult = { ok: true; rule: Rule } | { ok: false; error: string };
export type CompileRulesResult = { ok: true; matcher: CallMatcher } | { ok: false; errors: string[] };

export function parseRule(text: string): ParseRuleResult {
  const parsed = parseRuleText(text);
  if (!parsed.ok) return parsed;
  // Compiling is how picomatch reports an invalid glob.
  const error = new RuleIndex().add(parsed.rule);
  return error ? { ok: false, error } : parsed;
}

/** One matcher for a hook's rules: it matches a call when any rule does; no rules match every call. */
export function compileRules(rules: string[]): CompileRulesResult {
  if (rules.length === 0) return { ok: true, matcher: { matches: () => true } };
  const index = new RuleIndex();
  const errors: string[] = [];
  for (const text of rules) {
    const parsed = parseRuleText(text);
    const error = parsed.ok ? index.add(parsed.rule) : parsed.error;
    if (error) errors.push(error);
  }
  return errors.length > 0 ? { ok: false, errors } : { ok: true, matcher: index };
}

type TargetKind = Exclude<ToolTarget['kind'], 'none'>;

const DOMAIN_PREFIX = 'domain:';
const GLOB_OPTIONS = { dot: true, windows: false, debug: true } as const;
const REGEX_SPECIAL = /[.*+?^${}()|[\]\\]/g;
/** Characters that may end the literal prefix of a picomatch glob. */
const GLOB_SPECIAL = /[*?[\]{}()!+@\\]/;

/** The commands of each command target; null when the command does not parse. */
const splitTargets = new WeakMap<ToolTarget, string[] | null>();

function parseRuleText(text: string): ParseRuleResult {
  const fail = (problem: string): ParseRuleResult => ({ ok: false, error: `rule ${JSON.stringify(text)}: ${problem}` });
  const trimmed = text.trim();
  if (trimmed === '') return fail('empty');
  const open = trimmed.indexOf('(');
  const close = trimmed.lastIndexOf(')');
  if (open < 0 && close >= 0) return fail('")" without "("');
  if (open >= 0 && close < open) return fail('missing ")"');
  if (open >= 0 && close < trimmed.length - 1) return fail('unexpected text after ")"');
  const toolPart = (open < 0 ? trimmed : trimmed.slice(0, open)).trim();
  if (toolPart === '') return fail('missing tool name');
  if (/\s/.test(toolPart)) return fail('a tool name has no spaces (put patterns in parentheses: "bash(git push*)")');
  const pattern = open < 0 ? null : trimmed.slice(open + 1, close).trim();
  if (pattern === '') return fail('empty pattern');
  if (pattern?.startsWith(DOMAIN_PREFIX) && pattern.slice(DOMAIN_PREFIX.length).trim() === '') return fail('empty domain');
  const isGlob = picomatch.scan(toolPart).isGlob;
  const tool = isGlob ? toolPart : canonicalToolName(toolPart);
  if (pattern !== null && !isGlob && !(PATTERN_TOOLS as readonly string[]).includes(tool)) {
    return fail(`only ${PATTERN_TOOLS.slice(0, -1).join(', ')} and ${PATTERN_TOOLS.at(-1)} take a pattern`);
  }
  return { ok: true, rule: { text, tool, pattern } };
}

/** Rules grouped by tool part, so a call only meets the patterns of the rules naming its tool. */
class RuleIndex implements CallMatcher {
  private readonly byTool = new Map<string, PatternSet>();
  private readonly byToolGlob = new Map<string, PatternSet>();
  /** Tool globs by literal prefix, so thousands of `mcp__server__*` rules cost a few lookups. */
  private readonly toolGlobs = new PrefixMap<{ glob: RegExp; patterns: PatternSet }>();

  /** Compiles `rule` into the index; returns an error when one of its globs is invalid. */
  add(rule: Rule): string | undefined {
    const isGlob = picomatch.scan(rule.tool).isGlob;
    try {
      const group = isGlob ? this.byToolGlob : this.byTool;
      let patterns = group.get(rule.tool);
      if (!patterns) {
        patterns = new PatternSet();
        if (isGlob) {
          const glob = picomatch.makeRe(rule.tool, GLOB_OPTIONS);
          this.toolGlobs.add(rule.tool.split(GLOB_SPECIAL)[0], { glob, patterns });
        }
        group.set(rule.tool, patterns);
      }
      // A glob tool part may meet any kind of target, so its pattern is compiled for each.
      const kinds: TargetKind[] = isGlob ? ['command', 'path', 'url']
        : rule.tool === BASH_TOOL ? ['command'] : isPathTool(rule.tool) ? ['path'] : rule.tool === FETCH_TOOL ? ['url'] : [];
      patterns.add(rule.pattern, kinds);
      return undefined;
    } catch (e) {
      return `rule ${JSON.stringify(rule.text)}: invalid glob: ${e instanceof Error ? e.message : String(e)}`;
    }
  }

  matches(call: TargetedCall): boolean {
    const tool = canonicalToolName(call.tool);
    if (this.byTool.get(tool)?.matches(call.target)) return true;
    return this.toolGlobs.some(tool, ({ glob, patterns }) => glob.test(tool) && patterns.matches(call.target));
  }
}

/** The patterns of every rule sharing one tool part, compiled once. */
class PatternSet {
  private matchesAll = false;
  private readonly commands = new WildcardIndex();
  private readonly urls = new WildcardIndex();
  private readonly domains = new Set<string>();
  private readonly hostGlobs: RegExp[] = [];
  private readonly pathGlobs: RegExp[] = [];
  private readonly basenameGlobs: RegExp[] = [];

  /** Adds a rule's pattern, read as each of `kinds`; no pattern matches every call. Throws on an invalid glob. */
  add(pattern: string | null, kinds: TargetKind[]): void {
    if (pattern === null) {
      this.matchesAll = true;
      return;
    }
    for (const kind of kinds) {
      if (kind === 'command') this.commands.add(pattern);
      else if (kind === 'path') this.addPath(pattern);
      else this.addUrl(pattern);
    }
  }

  private addPath(pattern: string): void {
    // Like .gitignore, a pattern without `/` names a file anywhere: `*.ts`, `.env`.
    (pattern.includes('/') ? this.pathGlobs : this.basenameGlobs).push(picomatch.makeRe(pattern, GLOB_OPTIONS));
  }

  private addUrl(pattern: string): void {
    if (!pattern.startsWith(DOMAIN_PREFIX)) return this.urls.add(pattern);
    const domain = pattern.slice(DOMAIN_PREFIX.length).trim().toLowerCase();
    if (picomatch.scan(domain).isGlob) this.hostGlobs.push(picomatch.makeRe(domain, GLOB_OPTIONS));
    else this.domains.add(domain);
  }

  matches(target: ToolTarget): boolean {
    if (this.matchesAll) return true;
    switch (target.kind) {
      case 'command': {
        if (this.commands.empty) return false;
        const commands = commandsOf(target);
        // A command we cannot read may hide anything: let the guard see it.
        return commands === null || commands.some((command) => this.commands.matches(command));
      }
      case 'path': {
        const absolute = target.path.replaceAll('\\', '/');
        const relative = target.relative.replaceAll('\\', '/');
        const basename = relative.slice(relative.lastIndexOf('/') + 1);
        return this.pathGlobs.some((glob) => glob.test(relative) || glob.test(absolute))
          || this.basenameGlobs.some((glob) => glob.test(basename));
      }
      case 'url':
        return this.hasDomainOf(target.host) || this.hostGlobs.some((glob) => glob.test(target.host))
          || this.urls.matches(target.url);
      case 'none':
        return false;
    }
  }

  /** Whether `host` is one of the `domain:` rules' domains or a subdomain of one. */
  private hasDomainOf(host: string): boolean {
    const labels = host.split('.');
    return labels.some((_, start) => this.domains.has(labels.slice(start).join('.')));
  }
}

/**
 * Wildcard patterns (`*` any text, `?` one character, nothing else special), indexed so that
 * thousands of rules cost a few map lookups per text: by literal prefix (`git push*`), else by a
 * three-character piece of their longest literal part that the text must contain (`*--force*`).
 */
class WildcardIndex {
  private readonly byPrefix = new PrefixMap<RegExp>();
  private readonly byTrigram = new Map<string, RegExp[]>();
  private readonly unindexed: RegExp[] = [];
  private count = 0;

  get empty(): boolean { return this.count === 0; }

  add(pattern: string): void {
    this.count++;
    // Claude Code's prefix form `git push:*`.
    const wildcard = pattern.endsWith(':*') ? pattern.slice(0, -2) + '*' : pattern;
    const source = wildcard.split(/([*?])/).map((piece) =>
      piece === '*' ? '.*' : piece === '?' ? '.' : piece.replace(REGEX_SPECIAL, '\\$&')).join('');
    const regex = new RegExp(`^${source}$`, 's');
    const literals = wildcard.split(/[*?]/);
    if (literals[0] !== '') return this.byPrefix.add(literals[0], regex);
    const longest = literals.reduce((a, b) => (b.length > a.length ? b : a));
    if (longest.length < 3) {
      this.unindexed.push(regex);
      return;
    }
    // The piece with the fewest patterns so far spreads `*danger1*`, `*danger2*`… over many buckets.
    let trigram = longest.slice(0, 3);
    for (let start = 1; start + 3 <= longest.length; start++) {
      const candidate = longest.slice(start, start + 3);
      if ((this.byTrigram.get(candidate)?.length ?? 0) < (this.byTrigram.get(trigram)?.length ?? 0)) trigram = candidate;
    }
    pushTo(this.byTrigram, trigram, regex);
  }

  matches(text: string): boolean {
    if (this.byPrefix.some(text, (pattern) => pattern.test(text))) return true;
    for (let start = 0; this.byTrigram.size > 0 && start + 3 <= text.length; start++) {
      if (this.byTrigram.get(text.slice(start, start + 3))?.some((pattern) => pattern.test(text))) return true;
    }
    return this.unindexed.some((pattern) => pattern.test(text));
  }
}

/** Values keyed by a literal prefix of the texts they may match. */
class PrefixMap<T> {
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

function commandsOf(target: ToolTarget & { kind: 'command' }): string[] | null {
  let commands = splitTargets.get(target);
  if (commands === undefined) {
    const split = splitCommand(target.command);
    commands = split.ok ? split.commands : null;
    splitTargets.set(target, commands);
  }
  return commands;
}

function pushTo<T>(buckets: Map<string, T[]>, key: string, value: T): void {
  const bucket = buckets.get(key);
  if (bucket) bucket.push(value);
  else buckets.set(key, [value]);
}
