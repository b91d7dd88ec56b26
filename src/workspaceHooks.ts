import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ConsentState } from './core/consent';
import { loadHookSet, uniqueProblems, type HookSet, type ProjectConsent } from './core/hookSet';
import { formatProblem } from './core/hookConfig';
import { trustFile, userHooksFile } from './core/paths';
import { policyLocation } from './core/policy';

/** The hooks of one workspace folder. */
export interface FolderHooks {
  readonly folder: vscode.WorkspaceFolder;
  readonly set: HookSet;
}

/** Decides, for this window, what a folder's stored consent state means (consent, Workspace Trust). */
export type ConsentPolicy = (folder: vscode.WorkspaceFolder, stored: ConsentState, hash: string) => ProjectConsent;

const RELOAD_DELAY_MS = 100;

/**
 * The hook sets of every workspace folder, loaded through `src/core` and reloaded when a hooks file,
 * the consent store, the folders or the settings change. Loading never runs a hook.
 */
export class WorkspaceHooks implements vscode.Disposable {
  private folders: readonly FolderHooks[] = [];
  private userOnly: HookSet | undefined;
  private readonly changed = new vscode.EventEmitter<void>();
  private readonly disposables: vscode.Disposable[] = [this.changed];
  private reloadTimer: NodeJS.Timeout | undefined;
  private loading: Promise<void> = Promise.resolve();
  private folderWatchers: vscode.Disposable[] = [];

  /** Fires after every reload. */
  readonly onDidChange = this.changed.event;

  constructor(
    private readonly home: string,
    private readonly log: vscode.LogOutputChannel,
    private readonly consentPolicy: ConsentPolicy = (_folder, stored) => stored,
  ) {
    this.watchOutsideWorkspace([userHooksFile(home), trustFile(home), policyLocation().file]);
    vscode.workspace.onDidChangeWorkspaceFolders(() => this.watchFolders() && this.scheduleReload('workspace folders changed'), null, this.disposables);
    this.watchFolders();
  }

  /** The folder sets; empty when no folder is open. */
  get all(): readonly FolderHooks[] {
    return this.folders;
  }

  /** The set for a file or folder: the folder that contains it, else the first folder, else user hooks alone. */
  setFor(uri?: vscode.Uri): HookSet | undefined {
    const folder = uri ? vscode.workspace.getWorkspaceFolder(uri) : undefined;
    const match = folder ? this.folders.find((f) => f.folder.uri.toString() === folder.uri.toString()) : undefined;
    return match?.set ?? this.folders[0]?.set ?? this.userOnly;
  }

  /** Loads every folder's hooks now; concurrent calls share one load. */
  reload(reason = 'requested'): Promise<void> {
    clearTimeout(this.reloadTimer);
    this.loading = this.loading.then(() => this.load(reason));
    return this.loading;
  }

  /** Resolves once the load in progress (if any) is done. */
  get ready(): Promise<void> {
    return this.loading;
  }

  private scheduleReload(reason: string): void {
    clearTimeout(this.reloadTimer);
    this.reloadTimer = setTimeout(() => void this.reload(reason), RELOAD_DELAY_MS);
  }

  private async load(reason: string): Promise<void> {
    const started = performance.now();
    const folders = vscode.workspace.workspaceFolders ?? [];
    try {
      this.folders = await Promise.all(
        folders
          .filter((folder) => folder.uri.scheme === 'file')
          .map(async (folder) => ({
            folder,
            set: await loadHookSet({ home: this.home, root: folder.uri.fsPath, consentOverride: (stored, hash) => this.consentPolicy(folder, stored, hash) }),
          })),
      );
      this.userOnly = this.folders.length === 0 ? await loadHookSet({ home: this.home, root: this.home }) : undefined;
    } catch (error) {
      this.log.error(`Loading hooks failed: ${(error as Error).message}`);
      return;
    }
    this.logLoad(reason, performance.now() - started);
    this.changed.fire();
  }

  private logLoad(reason: string, ms: number): void {
    const sets = this.folders.length > 0 ? this.folders.map((f) => f.set) : this.userOnly ? [this.userOnly] : [];
    this.log.info(`Loaded hooks (${reason}) in ${ms.toFixed(1)} ms`);
    for (const set of sets) {
      const project = set.project.hooks.length > 0 ? `, ${set.project.hooks.length} project (consent: ${set.projectConsent})` : '';
      this.log.info(`  ${set.root}: ${set.user.hooks.length} user${project}; ${set.active.length} active`);
    }
    for (const line of new Set([...uniqueProblems(sets).map(formatProblem), ...sets.flatMap((set) => set.notices)])) this.log.warn(`  ${line}`);
  }

  /** One watcher per folder for its `.garuda/hooks.json`; returns true so it chains in a handler. */
  private watchFolders(): true {
    this.folderWatchers.forEach((d) => d.dispose());
    this.folderWatchers = [];
    for (const folder of vscode.workspace.workspaceFolders ?? []) this.watch(folder, '.garuda/hooks.json', this.folderWatchers);
    return true;
  }

  /**
   * The user's hooks, the consent store and the team policy live outside the workspace. Node's own
   * watcher on their folders is listening as soon as it returns, so a file written right after
   * activation is not missed (VS Code's watchers start asynchronously). GARUDA_HOME is created for it.
   */
  private watchOutsideWorkspace(files: readonly string[]): void {
    const byFolder = new Map<string, Set<string>>();
    for (const file of files) byFolder.set(path.dirname(file), (byFolder.get(path.dirname(file)) ?? new Set()).add(path.basename(file)));
    fs.mkdirSync(this.home, { recursive: true, mode: 0o700 });
    for (const [folder, names] of byFolder) {
      try {
        const watcher = fs.watch(folder, (_event, name) => name && names.has(String(name)) && this.scheduleReload(`${name} changed`));
        watcher.on('error', (error) => this.log.warn(`Watching ${folder} stopped: ${error.message}`));
        this.disposables.push({ dispose: () => watcher.close() });
      } catch (error) {
        // A policy folder that does not exist holds no policy to watch.
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') this.log.warn(`Cannot watch ${folder}: ${(error as Error).message}`);
      }
    }
  }

  private watch(base: vscode.WorkspaceFolder, glob: string, bucket: vscode.Disposable[]): void {
    const watcher = vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(base, glob));
    const reload = (uri: vscode.Uri) => this.scheduleReload(`${path.basename(path.dirname(uri.fsPath))}/${path.basename(uri.fsPath)} changed`);
    bucket.push(watcher, watcher.onDidCreate(reload), watcher.onDidChange(reload), watcher.onDidDelete(reload));
  }

  dispose(): void {
    clearTimeout(this.reloadTimer);
    this.folderWatchers.forEach((d) => d.dispose());
    this.disposables.forEach((d) => d.dispose());
  }
}
