// Compiled permission rules, grouped so a call meets only the patterns of the rules naming its tool.
// Each rule carries a value: `true` in one hook's matcher, the hook's position in a set's index, so
// one search over all of a set's rules finds every hook a call triggers.
import picomatch from 'picomatch';
import type { Rule, TargetedCall } from './rules';
import { splitCommand } from './shellCommand';
import { BASH_TOOL, canonicalToolName, FETCH_TOOL, isPathTool, PATTERN_TOOLS, type ToolTarget } from './toolNames';
import { PrefixMap, pushTo, WildcardIndex, type Entry, type Visit } from './wildcardIndex';

export const DOMAIN_PREFIX = 'domain:';

type TargetKind = Exclude<ToolTarget['kind'], 'none'>;

const GLOB_OPTIONS = { dot: true, windows: false, debug: true } as const;
/** Characters that may end the literal prefix of a picomatch glob. */
const GLOB_SPECIAL = /[*?[\]{}()!+@\\]/;

/** The tools whose calls have a target: one that cannot be read may be anything. */
const PATTERN_TOOL_SET: ReadonlySet<string> = new Set(PATTERN_TOOLS);
/** `HTTPS://Example.com.:443` and the rest of a URL pattern, when the pattern names an http(s) host without wildcards. */
const URL_PATTERN_ORIGIN = /^(https?:\/\/[^/?#*]+)(\/.*)?$/is;

/** The commands of each command target; null when the command does not parse. */
const splitTargets = new WeakMap<ToolTarget, string[] | null>();

export class RuleIndex<T> {
  private readonly byTool = new Map<string, PatternSet<T>>();
  private readonly byToolGlob = new Map<string, PatternSet<T>>();
  /** Tool globs by literal prefix, so thousands of `mcp__server__*` rules cost a few lookups. */
  private readonly toolGlobs = new PrefixMap<{ glob: RegExp; patterns: PatternSet<T> }>();

  /** Compiles `rule` into the index; returns an error when one of its globs is invalid. */
  add(rule: Rule, value: T): string | undefined {
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
      patterns.add(rule.pattern, kinds, value);
      return undefined;
    } catch (e) {
      return `rule ${JSON.stringify(rule.text)}: invalid glob: ${e instanceof Error ? e.message : String(e)}`;
    }
  }

  /** Visits the value of each rule that matches `call` (a value may come more than once); true when `found` ended the search. */
  find(call: TargetedCall, found: Visit<T>): boolean {
    const tool = canonicalToolName(call.tool);
    // A bash, file or fetch call whose command, path or URL we cannot read may act on anything: its guards run.
    const unreadable = call.target.kind === 'none' && PATTERN_TOOL_SET.has(tool);
    if (this.byTool.get(tool)?.find(call.target, found, unreadable)) return true;
    return this.toolGlobs.some(tool, ({ glob, patterns }) => glob.test(tool) && patterns.find(call.target, found, unreadable));
  }

  matches(call: TargetedCall): boolean {
    return this.find(call, () => true);
  }
}

/** The patterns of every rule sharing one tool part, compiled once. */
class PatternSet<T> {
  /** The values of rules without a pattern, which match every call of the tool. */
  private readonly everyCall: T[] = [];
  /** The values of rules with a pattern, once each, whatever kinds of target it was compiled for. */
  private readonly withPattern: T[] = [];
  /** The values of `domain:` rules, plain or glob. */
  private readonly domainRules: T[] = [];
  private readonly commands = new WildcardIndex<T>();
  private readonly urls = new WildcardIndex<T>();
  private readonly domains = new Map<string, T[]>();
  private readonly hostGlobs: Entry<T>[] = [];
  private readonly pathGlobs: Entry<T>[] = [];
  private readonly basenameGlobs: Entry<T>[] = [];

  /** Adds a rule's pattern, read as each of `kinds`; no pattern matches every call. Throws on an invalid glob. */
  add(pattern: string | null, kinds: TargetKind[], value: T): void {
    if (pattern === null) {
      this.everyCall.push(value);
      return;
    }
    this.withPattern.push(value);
    for (const kind of kinds) {
      if (kind === 'command') this.commands.add(pattern, value);
      else if (kind === 'path') this.addPath(pattern, value);
      else this.addUrl(pattern, value);
    }
  }

  private addPath(pattern: string, value: T): void {
    // Like .gitignore, a pattern without `/` names a file anywhere: `*.ts`, `.env`.
    (pattern.includes('/') ? this.pathGlobs : this.basenameGlobs).push({ regex: picomatch.makeRe(pattern, GLOB_OPTIONS), value });
  }

  private addUrl(pattern: string, value: T): void {
    if (!pattern.startsWith(DOMAIN_PREFIX)) return this.urls.add(normalizeUrlPattern(pattern), value);
    this.domainRules.push(value);
    const domain = pattern.slice(DOMAIN_PREFIX.length).trim().toLowerCase();
    if (picomatch.scan(domain).isGlob) this.hostGlobs.push({ regex: picomatch.makeRe(domain, GLOB_OPTIONS), value });
    else pushTo(this.domains, domain, value);
  }

  /** `unreadable`: the call's tool has targets but this call's cannot be read, so every pattern matches it. */
  find(target: ToolTarget, found: Visit<T>, unreadable: boolean): boolean {
    if (this.everyCall.some(found)) return true;
    const hit = (text: string) => (entry: Entry<T>) => entry.regex.test(text) && found(entry.value);
    switch (target.kind) {
      case 'command': {
        if (this.commands.empty) return false;
        const commands = commandsOf(target);
        // A command we cannot read may hide anything: let the guard see it.
        if (commands === null) return this.commands.values.some(found);
        return commands.some((command) => this.commands.find(command, found));
      }
      case 'path': {
        const absolute = target.path.replaceAll('\\', '/');
        const relative = target.relative.replaceAll('\\', '/');
        const basename = relative.slice(relative.lastIndexOf('/') + 1);
        return this.pathGlobs.some((entry) => hit(relative)(entry) || hit(absolute)(entry))
          || this.basenameGlobs.some(hit(basename));
      }
      case 'url':
        // No host (a URL that does not parse, or `file:`) tells no domain rule it is elsewhere: they all match.
        return (target.host === '' ? this.domainRules.some(found)
          : this.findDomainOf(target.host, found) || this.hostGlobs.some(hit(target.host))) || this.urls.find(target.url, found);
      case 'none':
        return unreadable && this.withPattern.some(found);
    }
  }

  /** Visits the `domain:` rules for `host` or a domain it is a subdomain of. */
  private findDomainOf(host: string, found: Visit<T>): boolean {
    if (this.domains.size === 0) return false;
    const labels = host.split('.');
    return labels.some((_, start) => this.domains.get(labels.slice(start).join('.'))?.some(found));
  }
}

/**
 * The pattern with its scheme and host written as toolTarget writes a URL's, so `fetch(https://Example.com:443)`
 * still meets `https://example.com/`; a pattern with a wildcard in its host is left as written.
 */
function normalizeUrlPattern(pattern: string): string {
  const parts = URL_PATTERN_ORIGIN.exec(pattern);
  if (!parts) return pattern;
  try {
    const origin = new URL(parts[1]!);
    const host = origin.hostname.replace(/\.+$/, '');
    if (host !== origin.hostname && host !== '') origin.hostname = host;
    // href ends with the `/` of the empty path.
    return origin.href.slice(0, -1) + (parts[2] ?? '/');
  } catch {
    return pattern;
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
