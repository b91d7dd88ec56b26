import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { cleanLine } from './core/clean';
import { describeHook } from './core/consent';
import { formatProblem, type Hook } from './core/hookConfig';
import { uniqueProblems } from './core/hookSet';
import { projectHooksFile, userHooksFile } from './core/paths';
import type { Ctx } from './ctx';
import { revealJsonPath } from './jsonLocation';

type CommandFactory = (ctx: Ctx) => (...args: never[]) => unknown;

/** Every command of the extension, once; each feature file adds its own table. */
export const COMMANDS: Record<string, CommandFactory> = {
  'garudaHooks.showActiveHooks': (ctx) => () => showActiveHooks(ctx),
  'garudaHooks.reloadHooks': (ctx) => () => ctx.hooks.reload('Reload Hooks command'),
  'garudaHooks.openUserHooksFile': (ctx) => () => openHooksFile(userHooksFile(ctx.home), USER_TEMPLATE),
  'garudaHooks.openProjectHooksFile': (ctx) => (folder?: vscode.Uri) => openProjectHooksFile(ctx, folder),
  'garudaHooks.showLog': (ctx) => () => ctx.log.show(),
};

export function registerCommands(ctx: Ctx, table: Record<string, CommandFactory>): void {
  for (const [id, factory] of Object.entries(table)) ctx.subscriptions.push(vscode.commands.registerCommand(id, factory(ctx)));
}

interface HookPick extends vscode.QuickPickItem {
  readonly file?: string;
  readonly jsonPath?: readonly (string | number)[];
}

/** The editor's `/hooks`: every hook with its source, event, rules, failure mode and network flag. */
async function showActiveHooks(ctx: Ctx): Promise<void> {
  await ctx.hooks.ready;
  const items: HookPick[] = [];
  const sets = ctx.sets();
  if (!ctx.config.enabled) items.push({ label: '$(circle-slash) Garuda Hooks is turned off (garudaHooks.enabled): no hook runs' });
  const user = sets[0]?.user;
  if (user) {
    items.push({ label: `User hooks · ${user.file}`, kind: vscode.QuickPickItemKind.Separator });
    items.push(...user.hooks.map((hook) => hookItem(hook, true)));
    if (user.hooks.length === 0) items.push({ label: '$(info) No user hooks', file: user.file, jsonPath: [] });
  }
  for (const set of sets) {
    if (!set.project.exists) continue;
    items.push({ label: `Project hooks · ${set.root} · consent: ${set.projectConsent}`, kind: vscode.QuickPickItemKind.Separator });
    const active = set.projectConsent === 'allowed' || set.projectConsent === 'allowed_once';
    items.push(...set.project.hooks.map((hook) => hookItem(hook, active)));
  }
  const problems = uniqueProblems(sets);
  if (problems.length > 0) items.push({ label: 'Problems', kind: vscode.QuickPickItemKind.Separator });
  for (const problem of problems) items.push({ label: `$(error) ${cleanLine(formatProblem(problem), 300)}`, file: problem.file, jsonPath: problem.path });
  for (const notice of new Set(sets.flatMap((set) => set.notices))) items.push({ label: `$(warning) ${cleanLine(notice, 300)}` });

  const picked = await vscode.window.showQuickPick(items, { title: 'Garuda Hooks: Active Hooks', matchOnDescription: true, matchOnDetail: true });
  if (picked?.file) await revealJsonPath(picked.file, picked.jsonPath ?? []);
}

function hookItem(hook: Hook, active: boolean): HookPick {
  const icon = !active ? 'circle-slash' : hook.event === 'preToolUse' ? 'shield' : hook.event === 'postToolUse' ? 'comment' : 'debug-stop';
  return {
    label: `$(${icon}) ${cleanLine(hook.command, 200)}`,
    description: `${hook.source}${active ? '' : ' · not active'}`,
    detail: describeHook(hook),
    file: hook.file,
    jsonPath: ['hooks', hook.event, hook.index],
  };
}

async function openProjectHooksFile(ctx: Ctx, uri?: vscode.Uri): Promise<void> {
  const folders = vscode.workspace.workspaceFolders ?? [];
  const given = uri ? vscode.workspace.getWorkspaceFolder(uri) : undefined;
  const folder = given ?? (folders.length > 1 ? await vscode.window.showWorkspaceFolderPick({ placeHolder: 'Open the project hooks of which folder?' }) : folders[0]);
  if (!folder) {
    if (folders.length === 0) void vscode.window.showInformationMessage('Open a folder first: project hooks live in <folder>/.garuda/hooks.json.');
    return;
  }
  await openHooksFile(projectHooksFile(folder.uri.fsPath), PROJECT_TEMPLATE);
  ctx.log.info(`Opened ${projectHooksFile(folder.uri.fsPath)}`);
}

/** Opens a hooks file, writing the template first when it does not exist yet. */
async function openHooksFile(file: string, template: string): Promise<void> {
  await fs.mkdir(path.dirname(file), { recursive: true });
  await fs.writeFile(file, template, { flag: 'wx' }).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== 'EEXIST') throw error;
  });
  await vscode.window.showTextDocument(vscode.Uri.file(file));
}

const USER_TEMPLATE = `{
  // Your own hooks: they run in every workspace. See "Garuda Hooks" in the extension's README.
  "hooks": {
    "preToolUse": [],
    "postToolUse": [],
    "stop": []
  }
}
`;

export const PROJECT_TEMPLATE = `{
  // This project's hooks. They run only after each user allows them, and ask again when changed.
  "hooks": {
    "preToolUse": [
      {
        "tools": ["bash(git push*)"],
        "command": "echo 'Pushes need a review: open a pull request instead.' >&2; exit 2"
      }
    ],
    "postToolUse": [
      {
        "tools": ["edit_file(*.js)", "write_file(*.js)"],
        "command": "node --check \\"$GARUDA_FILE\\" || exit 2",
        "timeoutMs": 30000
      }
    ]
  }
}
`;
