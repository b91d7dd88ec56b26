import * as vscode from 'vscode';
import { cleanLine } from './core/clean';
import { describeHook } from './core/consent';
import { HOOK_EVENTS, jsonPath, type ConfigProblem, type Hook, type HookEvent, type HooksFile } from './core/hookConfig';
import type { HookSet } from './core/hookSet';
import { displayPath } from './core/paths';
import { describePolicy } from './core/policy';
import { sandboxLine } from './core/sandbox';
import type { Ctx } from './ctx';
import { revealJsonPath } from './jsonLocation';
import { PROJECT_RUNS, projectStatus } from './projectStatus';
import { requestForHook, type TestToolCall } from './testToolCall';
import type { FolderHooks } from './workspaceHooks';

/** One row of the Hooks view: a file (User, a project folder), an event, a hook, an invalid entry, a fact. */
export class HooksNode extends vscode.TreeItem {
  children: HooksNode[] = [];
  /** "Open Definition": the hooks file, at this row's JSON path. */
  open?: () => Thenable<unknown>;
  /** "Test Hook": a valid hook and the folder it belongs to (none: the user's hooks, any folder). */
  test?: { readonly hook: Hook; readonly folder?: vscode.Uri };
  /** A project row's folder, for "Review Project Hooks" and "Revoke Project Hooks Consent". */
  folder?: vscode.Uri;
}

/** The Hooks view: User, then each workspace folder, then event, then one row per hook or invalid entry. */
export class HooksTree implements vscode.TreeDataProvider<HooksNode>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChangeTreeData = this.changed.event;

  constructor(private readonly ctx: Ctx) {}

  refresh(): void {
    this.changed.fire();
  }

  getTreeItem(node: HooksNode): vscode.TreeItem {
    return node;
  }

  async getChildren(node?: HooksNode): Promise<HooksNode[]> {
    if (node) return node.children;
    await this.ctx.hooks.ready;
    const sets = this.ctx.sets();
    const user = sets[0]?.user;
    // No hooks anywhere: an empty tree lets the view's welcome explain and offer to create a file.
    if (!user || (isEmpty(user) && this.ctx.hooks.all.every((f) => !f.set.project.exists))) return [];
    return [userNode(user), ...this.ctx.hooks.all.map(projectNode), ...factNodes(this.ctx, sets[0]!)];
  }

  dispose(): void {
    this.changed.dispose();
  }
}

/** The view, kept current with every reload and setting, with its two row actions. */
export function registerHooksTree(ctx: Ctx, testToolCall: TestToolCall): HooksTree {
  const tree = new HooksTree(ctx);
  const view = vscode.window.createTreeView('garudaHooks.hooks', { treeDataProvider: tree, showCollapseAll: true });
  const update = () => {
    tree.refresh();
    view.message = ctx.config.enabled ? undefined : 'Garuda Hooks is turned off (garudaHooks.enabled): no hook runs.';
    const { pendingConsent } = ctx.summary();
    view.badge = pendingConsent > 0 ? { value: pendingConsent, tooltip: `${pendingConsent} project${pendingConsent === 1 ? '' : 's'} waiting for your consent` } : undefined;
  };
  ctx.hooks.onDidChange(update, null, ctx.subscriptions);
  vscode.workspace.onDidChangeConfiguration((event) => ctx.config.affects(event) && update(), null, ctx.subscriptions);
  ctx.subscriptions.push(
    tree,
    view,
    vscode.commands.registerCommand('garudaHooks.openDefinition', (node: HooksNode) => node.open?.()),
    vscode.commands.registerCommand('garudaHooks.testHook', (node: HooksNode) => node.test && testToolCall(requestForHook(node.test.hook, node.test.folder))),
  );
  update();
  return tree;
}

/** Each event's icon, what one of its hooks is called (`2 guards`), and what it does. */
const EVENTS: Record<HookEvent, { readonly icon: string; readonly noun: string; readonly tooltip: string }> = {
  preToolUse: { icon: 'shield', noun: 'guard', tooltip: 'Before a tool call: exit 2 (or a JSON deny) blocks the call.' },
  postToolUse: { icon: 'comment', noun: 'check', tooltip: 'After a tool call: exit 2 sends stderr to the model as feedback.' },
  stop: { icon: 'debug-stop', noun: 'stop hook', tooltip: 'When the agent wants to finish: exit 2 sends it back to work.' },
};

const themeIcon = (id: string, color?: string) => new vscode.ThemeIcon(id, color ? new vscode.ThemeColor(color) : undefined);

/** A row; `clickOpens`: selecting it opens its definition, as for hooks and invalid entries. */
function node(label: string, fields: Partial<HooksNode>, clickOpens = false): HooksNode {
  const state = fields.children?.length ? vscode.TreeItemCollapsibleState.Expanded : vscode.TreeItemCollapsibleState.None;
  const row = Object.assign(new HooksNode(label, state), fields);
  if (clickOpens) row.command = { command: 'garudaHooks.openDefinition', title: 'Open Definition', arguments: [row] };
  return row;
}

function userNode(file: HooksFile): HooksNode {
  return node('User', {
    id: 'user',
    description: file.exists ? cleanLine(displayPath(file.file), 300) : 'no user hooks',
    tooltip: `Your own hooks, trusted, run in every workspace: ${cleanLine(file.file, 300)}`,
    iconPath: themeIcon('account'),
    contextValue: 'root.user',
    children: fileChildren('user', file, { runs: true }),
    open: () => vscode.commands.executeCommand('garudaHooks.openUserHooksFile'),
  });
}

function projectNode({ folder, set }: FolderHooks): HooksNode {
  const consent = projectStatus(set);
  const tooltip = new vscode.MarkdownString();
  tooltip.appendText(`${cleanLine(set.root, 300)}\nProject hooks: ${consent.words}\n`);
  for (const notice of set.notices) tooltip.appendText(`\n${cleanLine(notice, 500)}\n`);
  return node(cleanLine(folder.name, 200), {
    id: `project:${folder.uri.toString()}`,
    description: consent.words,
    tooltip,
    iconPath: themeIcon(consent.icon, consent.color),
    contextValue: `root.project.${set.projectConsent}`,
    children: fileChildren(folder.uri.toString(), set.project, { runs: PROJECT_RUNS.has(set.projectConsent), folder: folder.uri, why: consent.words }),
    open: () => vscode.commands.executeCommand('garudaHooks.openProjectHooksFile', folder.uri),
    folder: folder.uri,
  });
}

/** Where hooks run and what the team policy allows; the policy only when there is one. */
function factNodes(ctx: Ctx, set: HookSet): HooksNode[] {
  const sandbox = node('Sandbox', {
    id: 'sandbox',
    description: ctx.sandbox.available ? ctx.sandbox.name : 'none: hooks run with your permissions',
    tooltip: sandboxLine(ctx.sandbox),
    iconPath: ctx.sandbox.available ? themeIcon('lock', 'testing.iconPassed') : themeIcon('unlock', 'editorWarning.foreground'),
    contextValue: 'fact.sandbox',
  });
  if (!set.policy.exists && !set.policy.problem) return [sandbox];
  const policy = node('Team policy', {
    id: 'policy',
    description: set.policy.problem ? 'cannot be used: every hook is refused' : cleanLine(displayPath(set.policy.file), 300),
    tooltip: describePolicy(set.policy),
    iconPath: themeIcon('law', set.policy.problem ? 'errorForeground' : undefined),
    contextValue: 'fact.policy',
  });
  return [sandbox, policy];
}

interface Scope {
  readonly runs: boolean;
  readonly folder?: vscode.Uri;
  /** Why the file's hooks do not run, when they do not. */
  readonly why?: string;
}

/** File-level problems first, then each event with its hooks and invalid entries in file order. */
function fileChildren(id: string, file: HooksFile, scope: Scope): HooksNode[] {
  const invalid = new Map<HookEvent, Map<number, ConfigProblem[]>>(HOOK_EVENTS.map((event) => [event, new Map()]));
  const rows: HooksNode[] = [];
  file.problems.forEach((problem, i) => {
    const [, event, index] = problem.path;
    const entries = invalid.get(event as HookEvent);
    if (entries && typeof index === 'number') entries.set(index, [...(entries.get(index) ?? []), problem]);
    else rows.push(invalidNode(`${id}/problem/${i}`, file, [problem], jsonPath(problem.path) || 'hooks.json'));
  });
  for (const event of HOOK_EVENTS) {
    const hooks = file.hooks.filter((hook) => hook.event === event).map((hook) => [hook.index, hookNode(`${id}/${event}/${hook.index}`, hook, scope)] as const);
    const broken = [...invalid.get(event)!].map(([index, problems]) => [index, invalidNode(`${id}/${event}/${index}`, file, problems, rawCommand(file, event, index))] as const);
    const children = [...hooks, ...broken].sort((a, b) => a[0] - b[0]).map(([, child]) => child);
    if (children.length === 0) continue;
    const { icon, noun, tooltip } = EVENTS[event];
    const description = `${hooks.length} ${noun}${hooks.length === 1 ? '' : 's'}${broken.length > 0 ? `, ${broken.length} invalid` : ''}`;
    rows.push(node(event, { id: `${id}/${event}`, description, tooltip, iconPath: themeIcon(icon), contextValue: 'event', children, open: () => revealJsonPath(file.file, ['hooks', event]) }));
  }
  return rows;
}

function hookNode(id: string, hook: Hook, scope: Scope): HooksNode {
  const rules = hook.tools.length > 0 ? hook.tools.map((rule) => cleanLine(rule, 200)).join(', ') : 'every tool';
  const tooltip = new vscode.MarkdownString(`**${hook.event}** · ${hook.source} hook\n`);
  tooltip.appendCodeblock(cleanLine(hook.command, 2000), 'sh');
  tooltip.appendText(`${describeHook(hook)}\nDefined in ${cleanLine(displayPath(hook.file), 300)}, ${jsonPath(['hooks', hook.event, hook.index])}\n`);
  if (!scope.runs) tooltip.appendText(`\nNot run: ${scope.why}\n`);
  return node(cleanLine(hook.command, 200), {
    id,
    description: hook.event === 'stop' ? undefined : rules,
    tooltip,
    iconPath: hookIcon(hook, scope.runs),
    contextValue: scope.runs ? 'hook' : 'hook.inactive',
    open: () => revealJsonPath(hook.file, ['hooks', hook.event, hook.index]),
    test: { hook, ...(scope.folder && { folder: scope.folder }) },
  }, true);
}

/** The icon flags what matters most: not running, network access, a guard that fails open. */
function hookIcon(hook: Hook, runs: boolean): vscode.ThemeIcon {
  if (!runs) return themeIcon('circle-slash', 'disabledForeground');
  if (hook.network) return themeIcon('globe', 'charts.orange');
  if (hook.event === 'preToolUse' && hook.onFailure === 'allow') return themeIcon('unlock', 'editorWarning.foreground');
  return themeIcon('terminal');
}

function invalidNode(id: string, file: HooksFile, problems: readonly ConfigProblem[], label: string): HooksNode {
  const tooltip = new vscode.MarkdownString('**Invalid**, skipped:\n\n');
  for (const problem of problems) tooltip.appendText(`${cleanLine(jsonPath(problem.path) || displayPath(file.file), 300)}: ${cleanLine(problem.message, 500)}\n`);
  return node(label, {
    id,
    description: `invalid: ${cleanLine(problems[0]!.message, 200)}${problems.length > 1 ? ` (+${problems.length - 1} more)` : ''}`,
    tooltip,
    iconPath: themeIcon('error', 'errorForeground'),
    contextValue: 'invalid',
    open: () => revealJsonPath(file.file, problems[0]!.path),
  }, true);
}

/** An invalid entry's command when it has a readable one, so the row says which hook it is. */
function rawCommand(file: HooksFile, event: HookEvent, index: number): string {
  const entry = (file.document as { hooks?: Record<string, unknown[]> } | undefined)?.hooks?.[event]?.[index] as { command?: unknown } | undefined;
  return typeof entry?.command === 'string' && entry.command.trim() ? cleanLine(entry.command, 200) : jsonPath(['hooks', event, index]);
}

function isEmpty(file: HooksFile): boolean {
  return file.hooks.length === 0 && file.problems.length === 0;
}
