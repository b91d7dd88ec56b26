import * as vscode from 'vscode';
import { Config } from './config';
import { createAuditLog, type AuditLog } from './core/audit';
import { cleanLine } from './core/clean';
import { uniqueActiveHooks, uniqueProblems, type HookSet } from './core/hookSet';
import { garudaHome } from './core/paths';
import { createHookRunner, type HookOutcome, type HookRunner } from './core/runner';
import { detectSandbox, type SandboxInfo } from './core/sandbox';
import { WarmSandboxes } from './core/warmSandbox';
import { WindowConsent } from './consent';
import { WorkspaceHooks } from './workspaceHooks';

/** Counts the status bar and the tree show. */
export interface HooksSummary {
  readonly active: number;
  readonly problems: number;
  readonly pendingConsent: number;
}

/**
 * The extension's state, built once in `activate` and handed to every feature: the settings, the
 * log, the hooks of every folder, and the runner. Disposing it disposes everything it owns.
 */
export class Ctx implements vscode.Disposable {
  readonly subscriptions: vscode.Disposable[] = [];
  readonly config = new Config();
  readonly home = garudaHome();
  readonly log: vscode.LogOutputChannel;
  readonly audit: AuditLog;
  readonly hooks: WorkspaceHooks;
  readonly runner: HookRunner;
  /** Sandboxes kept up between tool calls: starting one per hook run costs more than the hook's shell. */
  private readonly warmSandboxes = new WarmSandboxes({ onProblem: (message) => this.log.warn(message) });
  private readonly ran = new vscode.EventEmitter<{ outcome: HookOutcome; set: HookSet }>();
  /** Fires after every event that ran at least one hook. */
  readonly onDidRunHooks = this.ran.event;

  /** This window's consent answers and Workspace Trust, which decide whether project hooks run. */
  readonly windowConsent = new WindowConsent();

  constructor(readonly extension: vscode.ExtensionContext) {
    this.log = vscode.window.createOutputChannel('Garuda Hooks', { log: true });
    this.audit = createAuditLog(this.home);
    this.hooks = new WorkspaceHooks(this.home, this.log, (folder, stored, hash) => this.windowConsent.stateFor(folder, stored, hash));
    this.runner = createHookRunner({
      sandbox: detectSandbox,
      warmSandboxes: this.warmSandboxes,
      audit: this.audit,
      onDidRun: (outcome, set) => {
        this.logOutcome(outcome);
        this.ran.fire({ outcome, set });
      },
      onAuditError: (error) => this.log.error(`The audit log ${this.audit.file} could not be written: ${error.message}`),
    });
    this.subscriptions.push(this.log, this.hooks, this.ran, this.warmSandboxes);
    extension.subscriptions.push(this);
  }

  /** Detected on first use, not during activation: detecting starts a trial sandbox. */
  get sandbox(): SandboxInfo {
    return detectSandbox();
  }

  /** The hooks for a call in `folder` (a folder or a file in it), once loaded; undefined when turned off. */
  async hookSetFor(folder: vscode.Uri | undefined): Promise<HookSet | undefined> {
    await this.hooks.ready;
    return this.config.enabled ? this.hooks.setFor(folder) : undefined;
  }

  /** Every loaded hook set, one per folder (or the user hooks alone when no folder is open). */
  sets(): HookSet[] {
    const folders = this.hooks.all.map((f) => f.set);
    const single = this.hooks.setFor();
    return folders.length > 0 ? folders : single ? [single] : [];
  }

  summary(): HooksSummary {
    const sets = this.sets();
    const pendingConsent = sets.filter((set) => set.projectConsent === 'unreviewed' || set.projectConsent === 'changed').length;
    return { active: uniqueActiveHooks(sets).length, problems: uniqueProblems(sets).length, pendingConsent };
  }

  private logOutcome(outcome: HookOutcome): void {
    const event = outcome.event === 'stop' ? 'stop' : `${outcome.event} ${outcome.tool}`;
    for (const run of outcome.runs) {
      const status = run.timedOut ? 'timed out' : run.signal ?? `exit ${run.exitCode}`;
      this.log.info(`${event}: ${run.source} hook → ${run.decision} (${status}, ${run.durationMs} ms): ${cleanLine(run.command, 200)}`);
    }
    for (const warning of outcome.warnings) this.log.warn(warning);
    this.log.info(`${event}: ${outcome.decision}`);
  }

  dispose(): void {
    this.subscriptions.splice(0).reverse().forEach((d) => d.dispose());
  }
}
