// The API an agent extension gets from `vscode.extensions.getExtension('garuda.garuda-hooks').exports`.
// Types only: an agent may copy this file to type its dependency.
import type * as vscode from 'vscode';

/** A tool call an agent is about to make, or just made. Tool names: bash, edit_file, write_file, read_file, fetch, or any other (MCP) name. */
export interface ToolCallRequest {
  readonly tool: string;
  /** The tool's input: `{command}` for bash, `{path}` for file tools, `{url}` for fetch. */
  readonly input: unknown;
  readonly toolCallId?: string;
  /** The workspace folder the call acts in (a folder or any file in it); default the first folder. */
  readonly folder?: vscode.Uri;
  /** Who asks, for the log and the audit ("copilot", "my-agent"). */
  readonly agent?: string;
  readonly step?: number;
}

export interface PreToolUseResult {
  /** `deny`: do not run the call; tell the model "Blocked by a hook: <reason>". Hooks never approve. */
  readonly decision: 'allow' | 'deny';
  readonly reason?: string;
  /** For the user: hooks that failed, config problems, project hooks not run. */
  readonly warnings: readonly string[];
}

export interface PostToolUseResult {
  /** Append to the tool result for the model; already wrapped in `<hook_feedback>`. */
  readonly feedback?: string;
  readonly warnings: readonly string[];
}

/** An agent that wants to finish. */
export interface StopRequest {
  /** Identifies the run whose continuations are counted; default the agent name. */
  readonly runId?: string;
  readonly folder?: vscode.Uri;
  readonly agent?: string;
  readonly status?: string;
  /** The agent's final answer, for hooks that check it. */
  readonly submission?: string;
}

export interface StopResult {
  /** `continue`: keep working, with `reason` as the next instruction, until the cap is reached. */
  readonly decision: 'allow' | 'continue';
  readonly reason?: string;
  /** How many times this run has been sent back so far. */
  readonly continuations: number;
  readonly warnings: readonly string[];
}

export interface ActiveHook {
  readonly source: 'user' | 'project';
  readonly event: 'preToolUse' | 'postToolUse' | 'stop';
  readonly command: string;
  readonly tools: readonly string[];
  readonly timeoutMs: number;
  readonly network: boolean;
  readonly onFailure: 'block' | 'allow';
  /** The workspace folder a project hook belongs to. */
  readonly folder?: string;
  readonly file: string;
}

/** One event that ran hooks, as the log and the Audit view see it. */
export interface HooksRunEvent {
  readonly event: 'preToolUse' | 'postToolUse' | 'stop';
  readonly tool?: string;
  readonly decision: string;
  readonly root: string;
  readonly runs: readonly { readonly source: string; readonly command: string; readonly decision: string; readonly exitCode: number | null; readonly durationMs: number }[];
}

export interface GarudaHooksApi {
  readonly version: 1;
  /** Resolves when every folder's hooks are loaded. */
  readonly ready: Promise<void>;
  /** How long `activate` took, in milliseconds. */
  readonly activationMs: number;
  preToolUse(call: ToolCallRequest): Promise<PreToolUseResult>;
  postToolUse(call: ToolCallRequest, result: unknown): Promise<PostToolUseResult>;
  stop(run: StopRequest): Promise<StopResult>;
  readonly onDidRunHooks: vscode.Event<HooksRunEvent>;
  activeHooks(): ActiveHook[];
  /** Text for the agent's system prompt when hooks are active, else undefined. */
  systemPromptNote(): string | undefined;
}
