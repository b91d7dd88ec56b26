import * as vscode from 'vscode';
import { CONSENT_QUESTION, readTrustStore, rememberConsent, revokeConsent, type ConsentState } from './core/consent';
import { consentDetailWithChanges } from './core/consentDiff';
import type { HookSet, ProjectConsent } from './core/hookSet';
import type { Ctx } from './ctx';

export const ALLOW_ONCE = 'Allow once';
export const ALWAYS_ALLOW = 'Always allow';
export const DENY = 'Deny';
export type ConsentAnswer = typeof ALLOW_ONCE | typeof ALWAYS_ALLOW | typeof DENY;

/** Shows the question; undefined when the user dismissed it (Escape, the close button). */
export type ConsentPrompt = (question: string, detail: string) => Promise<ConsentAnswer | undefined>;

interface WindowAnswer {
  readonly state: 'allowed_once' | 'denied';
  /** The answer holds for these hooks only: a changed file asks again. */
  readonly hash: string;
  readonly document: unknown;
}

/**
 * Answers that hold for this window only (Allow once, Deny), and Workspace Trust. WorkspaceHooks asks
 * it what each folder's stored consent means here; it knows nothing of modals.
 */
export class WindowConsent {
  private readonly answers = new Map<string, WindowAnswer>();

  stateFor(folder: vscode.WorkspaceFolder, stored: ConsentState, hash: string): ProjectConsent {
    if (!vscode.workspace.isTrusted) return 'restricted';
    const answer = this.answers.get(folder.uri.toString());
    if (answer?.hash === hash) return answer.state;
    // Allowed once in this window, then edited: the same question as for remembered hooks that changed.
    return answer?.state === 'allowed_once' && stored === 'unreviewed' ? 'changed' : stored;
  }

  answerFor(folder: vscode.WorkspaceFolder): WindowAnswer | undefined {
    return this.answers.get(folder.uri.toString());
  }

  record(folder: vscode.WorkspaceFolder, answer: WindowAnswer | undefined): void {
    if (answer) this.answers.set(folder.uri.toString(), answer);
    else this.answers.delete(folder.uri.toString());
  }
}

/**
 * The real modal. Deny comes first, so it is the default button: Enter pressed out of habit when a
 * cloned repository opens must not run its code. VS Code's own Cancel counts as Deny, like Escape.
 */
const showConsentModal: ConsentPrompt = async (question, detail) =>
  vscode.window.showWarningMessage<ConsentAnswer>(question, { modal: true, detail }, DENY, ALLOW_ONCE, ALWAYS_ALLOW);

/** Asks before any project hook runs, and again whenever the hooks change; owns the consent commands. */
export class ConsentController {
  /** Replaced in tests: the test host refuses modal dialogs. */
  prompt: ConsentPrompt = showConsentModal;
  private readonly asking = new Set<string>();
  private queue: Promise<void> = Promise.resolve();

  constructor(private readonly ctx: Ctx) {
    ctx.hooks.onDidChange(() => this.askPending(), null, ctx.subscriptions);
    vscode.workspace.onDidGrantWorkspaceTrust(() => void ctx.hooks.reload('workspace trusted'), null, ctx.subscriptions);
  }

  /** One modal at a time, for every folder whose hooks wait for an answer. */
  private askPending(): void {
    for (const { folder, set } of this.ctx.hooks.all) {
      // A deleted hooks file ends this window's answer: hooks created later are a new question.
      if (set.projectConsent === 'none') this.ctx.windowConsent.record(folder, undefined);
      if (set.projectConsent !== 'unreviewed' && set.projectConsent !== 'changed') continue;
      const key = `${folder.uri.toString()}#${set.projectHash}`;
      if (this.asking.has(key)) continue;
      this.asking.add(key);
      this.queue = this.queue.then(() => this.ask(folder, set)).finally(() => this.asking.delete(key));
    }
  }

  /** Shows the modal for one folder's current hooks and applies the answer. */
  async ask(folder: vscode.WorkspaceFolder, set: HookSet): Promise<void> {
    if (!set.projectHash) return;
    const trust = await readTrustStore(this.ctx.home);
    const earlier = this.ctx.windowConsent.answerFor(folder);
    // Allowed before, in this window or for good: the question is about what changed since then.
    const allowedBefore = earlier?.state === 'allowed_once' || trust.store.hooks[set.root] !== undefined;
    const stored = allowedBefore ? 'changed' : 'unreviewed';
    const previous = earlier?.state === 'allowed_once' ? earlier.document : trust.store.reviewed[set.root];
    const detail = consentDetailWithChanges(set.project, stored, this.ctx.sandbox, set.policy, previous);
    let answer: ConsentAnswer | undefined;
    try {
      answer = await this.prompt(CONSENT_QUESTION, detail);
    } catch (error) {
      // No answer was given: the hooks stay off and the question stays open for the next reload.
      this.ctx.log.error(`The consent dialog for ${set.root} could not be shown: ${(error as Error).message}`);
      return;
    }
    await this.apply(folder, set, answer ?? DENY);
  }

  private async apply(folder: vscode.WorkspaceFolder, set: HookSet, answer: ConsentAnswer): Promise<void> {
    const hash = set.projectHash!;
    const decision = answer === ALWAYS_ALLOW ? 'remember' : answer === ALLOW_ONCE ? 'allow_once' : 'deny';
    if (answer === ALWAYS_ALLOW) {
      await rememberConsent(this.ctx.home, set.root, hash, set.project.document);
      this.ctx.windowConsent.record(folder, undefined);
    } else {
      this.ctx.windowConsent.record(folder, { state: answer === ALLOW_ONCE ? 'allowed_once' : 'denied', hash, document: set.project.document });
    }
    this.ctx.log.info(`Project hooks of ${set.root}: ${answer} (hash ${hash.slice(0, 12)}…)`);
    await this.ctx.audit.append({ kind: 'consent', time: new Date().toISOString(), root: set.root, decision, hash }).catch((error: Error) => {
      this.ctx.log.error(`The audit log could not be written: ${error.message}`);
    });
    await this.ctx.hooks.reload(`consent: ${answer}`);
  }

  /** "Review Project Hooks": the modal again, whatever the current answer. */
  async review(uri?: vscode.Uri): Promise<void> {
    const entry = await this.pickFolder(uri, 'Review the hooks of which folder?');
    if (!entry) return;
    if (entry.set.projectConsent === 'restricted') {
      void vscode.window.showInformationMessage('This workspace is in Restricted Mode: trust it first, then review its hooks.');
      return;
    }
    await this.ask(entry.folder, entry.set);
  }

  /** "Revoke Project Hooks Consent": forget the stored answer; the hooks stay off in this window. */
  async revoke(uri?: vscode.Uri): Promise<void> {
    const entry = await this.pickFolder(uri, 'Revoke consent for which folder?');
    if (!entry?.set.projectHash) return;
    const had = await revokeConsent(this.ctx.home, entry.set.root);
    this.ctx.windowConsent.record(entry.folder, { state: 'denied', hash: entry.set.projectHash, document: entry.set.project.document });
    await this.ctx.audit.append({ kind: 'consent', time: new Date().toISOString(), root: entry.set.root, decision: 'revoke', hash: entry.set.projectHash }).catch(() => undefined);
    this.ctx.log.info(`Consent for ${entry.set.root} revoked${had ? '' : ' (none was stored)'}`);
    await this.ctx.hooks.reload('consent revoked');
  }

  private async pickFolder(uri: vscode.Uri | undefined, placeHolder: string) {
    await this.ctx.hooks.ready;
    const withHooks = this.ctx.hooks.all.filter(({ set }) => set.project.exists);
    const folder = uri ? vscode.workspace.getWorkspaceFolder(uri) : withHooks.length > 1 ? await vscode.window.showWorkspaceFolderPick({ placeHolder }) : withHooks[0]?.folder;
    const entry = this.ctx.hooks.all.find((f) => f.folder.uri.toString() === folder?.uri.toString());
    if (!entry?.set.project.exists) {
      void vscode.window.showInformationMessage('No project hooks (.garuda/hooks.json) in this workspace.');
      return undefined;
    }
    return entry;
  }
}

/** The commands take a folder's Uri, or a project row of the Hooks view (which carries its folder). */
type FolderArgument = vscode.Uri | { readonly folder?: vscode.Uri } | undefined;
const folderOf = (target: FolderArgument) => (target instanceof vscode.Uri ? target : target?.folder);

export function registerConsent(ctx: Ctx): ConsentController {
  const controller = new ConsentController(ctx);
  ctx.subscriptions.push(
    vscode.commands.registerCommand('garudaHooks.reviewProjectHooks', (target?: FolderArgument) => controller.review(folderOf(target))),
    vscode.commands.registerCommand('garudaHooks.revokeProjectHooksConsent', (target?: FolderArgument) => controller.revoke(folderOf(target))),
  );
  return controller;
}
