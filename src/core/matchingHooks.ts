// Which hooks a call triggers: the runner runs exactly these, and the editor shows them beforehand.
import type { Hook } from './hookConfig';
import type { HookSet } from './hookSet';
import { canonicalToolName, toolTarget, type ToolTarget } from './toolNames';

export interface MatchedCall {
  /** The canonical tool name. */
  readonly tool: string;
  readonly target: ToolTarget;
  /** In config order. */
  readonly hooks: readonly Hook[];
}

export function matchingHooks(set: HookSet, event: 'preToolUse' | 'postToolUse', call: { readonly tool: string; readonly input: unknown }): MatchedCall {
  const tool = canonicalToolName(call.tool);
  const target = toolTarget(tool, call.input, set.root);
  return { tool, target, hooks: set.active.filter((hook) => hook.event === event && hook.matcher.matches({ tool, target })) };
}

/** Stop hooks match no tool: every active one runs. */
export function stopHooks(set: HookSet): readonly Hook[] {
  return set.active.filter((hook) => hook.event === 'stop');
}
