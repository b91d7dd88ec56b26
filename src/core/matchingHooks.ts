// Which hooks a call triggers: the runner runs exactly these, and the editor shows them beforehand.
import type { Hook } from './hookConfig';
import type { HookSet } from './hookSet';
import type { RuleIndex } from './ruleIndex';
import { indexRules } from './rules';
import { canonicalToolName, toolTarget, type ToolTarget } from './toolNames';

export interface MatchedCall {
  /** The canonical tool name. */
  readonly tool: string;
  readonly target: ToolTarget;
  /** In config order. */
  readonly hooks: readonly Hook[];
}

type ToolEvent = 'preToolUse' | 'postToolUse';

/** An event's active hooks with all their rules in one index, whose values are positions in `hooks`. */
interface EventIndex {
  readonly hooks: readonly Hook[];
  /** The hooks without rules, which every call triggers. */
  readonly everyCall: readonly number[];
  readonly rules: RuleIndex<number>;
}

/**
 * Built on a set's first call and kept as long as the set: one search over every rule finds the
 * hooks a call triggers, where a pass over a thousand hooks cost a hundred microseconds a call.
 */
const indexes = new WeakMap<HookSet, Partial<Record<ToolEvent, EventIndex>>>();

export function matchingHooks(set: HookSet, event: ToolEvent, call: { readonly tool: string; readonly input: unknown }): MatchedCall {
  const tool = canonicalToolName(call.tool);
  const target = toolTarget(tool, call.input, set.root);
  const index = eventIndex(set, event);
  const matched = new Set(index.everyCall);
  index.rules.find({ tool, target }, (position) => {
    matched.add(position);
    return false;
  });
  return { tool, target, hooks: [...matched].sort((a, b) => a - b).map((position) => index.hooks[position]!) };
}

function eventIndex(set: HookSet, event: ToolEvent): EventIndex {
  const ofSet = indexes.get(set) ?? {};
  indexes.set(set, ofSet);
  let index = ofSet[event];
  if (!index) {
    const hooks = set.active.filter((hook) => hook.event === event);
    // Loading checked every rule, so none of them is invalid here.
    const { index: rules } = indexRules(hooks.flatMap((hook, position) => hook.tools.map((rule) => [rule, position] as const)));
    const everyCall = hooks.flatMap((hook, position) => (hook.tools.length === 0 ? [position] : []));
    index = ofSet[event] = { hooks, everyCall, rules };
  }
  return index;
}

/** Stop hooks match no tool: every active one runs. */
export function stopHooks(set: HookSet): readonly Hook[] {
  return set.active.filter((hook) => hook.event === 'stop');
}
