// Permission rules, the `tools` entries of a hook: `tool` or `tool(pattern)`, e.g. `bash(git push*)`,
// `edit_file(src/**)`, `fetch(domain:example.com)`, `mcp__github__*`, `*`.
import picomatch from 'picomatch';
import { splitCommand } from './shellCommand';
import { BASH_TOOL, canonicalToolName, FETCH_TOOL, isPathTool, PATTERN_TOOLS, type ToolTarget } from './toolNames';

/** A parsed rule: `tool` is a canonical tool name or a glob on tool names. */
export interface Rule { text: string; tool: string; pattern: string | null }
export interface ToolCall { tool: string; target: ToolTarget }
export interface CallMatcher { matches(call: ToolCall): boolean }

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

/** Commands of a target, split once per target object however many hooks and rules look at it. */
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
  private readonly byToolGlob = new Map<string, { tool: RegExp; patterns: PatternSet }>();

  /** Compiles `rule` into the index; returns an error when one of its globs is invalid. */
  add(rule: Rule): string | undefined {
    const isGlob = picomatch.scan(rule.tool).isGlob;
    try {
      let patterns = isGlob ? this.byToolGlob.get(rule.tool)?.patterns : this.byTool.get(rule.tool);
      if (!patterns) {
        patterns = new PatternSet();
        if (isGlob) this.byToolGlob.set(rule.tool, { tool: picomatch.makeRe(rule.tool, GLOB_OPTIONS), patterns });
        else this.byTool.set(rule.tool, patterns);
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

  matches(call: ToolCall): boolean {
    const tool = canonicalToolName(call.tool);
    if (this.byTool.get(tool)?.matches(call.target)) return true;
    for (const { tool: toolGlob, patterns } of this.byToolGlob.values()) {
      if (toolGlob.test(tool) && patterns.matches(call.target)) return true;
    }
    return false;
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
    let suffix = host;
    while (suffix !== '') {
      if (this.domains.has(suffix)) return true;
      const dot = suffix.indexOf('.');
      suffix = dot < 0 ? '' : suffix.slice(dot + 1);
    }
    return false;
  }
}

/**
 * Wildcard patterns (`*` any text, `?` one character, nothing else special), bucketed by their
 * literal prefix: a text meets only the patterns whose prefix it starts with, so thousands of
 * `bash(…)` rules cost a few map lookups per command.
 */
class WildcardIndex {
  private readonly byPrefix = new Map<string, RegExp[]>();
  private prefixLengths: number[] = [];

  get empty(): boolean {
    return this.byPrefix.size === 0;
  }

  add(pattern: string): void {
    // Claude Code's prefix form `git push:*`.
    const wildcard = pattern.endsWith(':*') ? pattern.slice(0, -2) + '*' : pattern;
    const source = wildcard.split(/([*?])/).map((piece) =>
      piece === '*' ? '.*' : piece === '?' ? '.' : piece.replace(REGEX_SPECIAL, '\\$&')).join('');
    const firstWildcard = wildcard.search(/[*?]/);
    const prefix = firstWildcard < 0 ? wildcard : wildcard.slice(0, firstWildcard);
    const regex = new RegExp(`^${source}$`, 's');
    const bucket = this.byPrefix.get(prefix);
    if (bucket) bucket.push(regex);
    else this.byPrefix.set(prefix, [regex]);
    if (!this.prefixLengths.includes(prefix.length)) {
      this.prefixLengths = [...this.prefixLengths, prefix.length].sort((a, b) => a - b);
    }
  }

  matches(text: string): boolean {
    for (const length of this.prefixLengths) {
      if (length > text.length) return false;
      if (this.byPrefix.get(text.slice(0, length))?.some((pattern) => pattern.test(text))) return true;
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
