// Our canonical tool names, the names other agents use for the same tools, and what a call acts on.
import * as path from 'node:path';

export const BASH_TOOL = 'bash';
export const FETCH_TOOL = 'fetch';
export const PATH_TOOLS = ['edit_file', 'write_file', 'read_file'] as const;
/** The tools whose rules may carry a pattern, because their calls have a target. */
export const PATTERN_TOOLS = [BASH_TOOL, ...PATH_TOOLS, FETCH_TOOL] as const;

export type PathTool = (typeof PATH_TOOLS)[number];

export type ToolTarget =
  | { kind: 'command'; command: string }
  /** `path` is absolute; `relative` is to the workspace root, with `/` separators, `..`-prefixed outside it. */
  | { kind: 'path'; path: string; relative: string }
  /**
   * `url` is normalized (`HTTPS://Example.com.:443/x` is `https://example.com/x`), or as given when it does not parse;
   * `host` is the lowercased host name without port or trailing dot, '' when the URL does not parse or has no host.
   */
  | { kind: 'url'; url: string; host: string }
  | { kind: 'none' };

/** Claude Code and VS Code Copilot names, so users can paste rules written for those agents. */
const TOOL_ALIASES = new Map<string, string>([
  ['Bash', BASH_TOOL],
  ['run_in_terminal', BASH_TOOL],
  ['Edit', 'edit_file'],
  ['MultiEdit', 'edit_file'],
  ['replace_string_in_file', 'edit_file'],
  ['Write', 'write_file'],
  ['create_file', 'write_file'],
  ['Read', 'read_file'],
  ['WebFetch', FETCH_TOOL],
]);

export function canonicalToolName(name: string): string {
  return TOOL_ALIASES.get(name) ?? name;
}

export function isPathTool(tool: string): tool is PathTool {
  return (PATH_TOOLS as readonly string[]).includes(tool);
}

/** What a call of `tool` with `input` acts on; relative paths are resolved against `root`. */
export function toolTarget(tool: string, input: unknown, root: string): ToolTarget {
  const fields = (typeof input === 'object' && input !== null ? input : {}) as Record<string, unknown>;
  const canonical = canonicalToolName(tool);
  if (canonical === BASH_TOOL) {
    return typeof fields.command === 'string' ? { kind: 'command', command: fields.command } : { kind: 'none' };
  }
  if (isPathTool(canonical)) {
    const given = [fields.path, fields.file_path, fields.filePath].find((value) => typeof value === 'string' && value !== '');
    if (typeof given !== 'string') return { kind: 'none' };
    const absolute = path.resolve(root, given);
    return { kind: 'path', path: absolute, relative: path.relative(root, absolute).split(path.sep).join('/') };
  }
  if (canonical === FETCH_TOOL && typeof fields.url === 'string') {
    return urlTarget(fields.url);
  }
  return { kind: 'none' };
}

/** Rules compare text, so the URL is written one way: the way the request goes, whatever the spelling. */
function urlTarget(raw: string): ToolTarget {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { kind: 'url', url: raw, host: '' };
  }
  // `example.com.` is the fully qualified spelling of `example.com`.
  const host = url.hostname.toLowerCase().replace(/\.+$/, '');
  if (host !== url.hostname && host !== '') url.hostname = host;
  return { kind: 'url', url: url.href, host };
}
