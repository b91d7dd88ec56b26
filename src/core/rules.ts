// Permission rules, the `tools` entries of a hook: `tool` or `tool(pattern)`, e.g. `bash(git push*)`,
// `edit_file(src/**)`, `fetch(domain:example.com)`, `mcp__github__*`, `*`.
import picomatch from 'picomatch';
import { DOMAIN_PREFIX, RuleIndex } from './ruleIndex';
import { canonicalToolName, PATTERN_TOOLS, type ToolTarget } from './toolNames';

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
  const error = new RuleIndex<true>().add(parsed.rule, true);
  return error ? { ok: false, error } : parsed;
}

/** One matcher for a hook's rules: it matches a call when any rule does; no rules match every call. */
export function compileRules(rules: string[]): CompileRulesResult {
  if (rules.length === 0) return { ok: true, matcher: { matches: () => true } };
  const { index, errors } = indexRules(rules.map((rule) => [rule, true] as const));
  return errors.length > 0 ? { ok: false, errors } : { ok: true, matcher: index };
}

/** Rules and what each stands for, in one index; the invalid ones are left out and reported. */
export function indexRules<T>(entries: Iterable<readonly [rule: string, value: T]>): { index: RuleIndex<T>; errors: string[] } {
  const index = new RuleIndex<T>();
  const errors: string[] = [];
  for (const [text, value] of entries) {
    const parsed = parseRuleText(text);
    const error = parsed.ok ? index.add(parsed.rule, value) : parsed.error;
    if (error) errors.push(error);
  }
  return { index, errors };
}

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
