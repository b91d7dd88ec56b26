import { createHash } from 'node:crypto';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { AuditDecision, AuditEntry, ConsentDecision, ConsentEntry, HookRunEntry } from './core/audit';
import { cleanLine } from './core/clean';
import type { Ctx } from './ctx';
import { ReadOnlyDocuments } from './readOnlyDocuments';
import { clockTime, exitStatus, recordMarkdown } from './report';

/** How many entries the view shows, newest first. */
const AUDIT_VIEW_ENTRIES = 200;
const AUDIT_SCHEME = 'garuda-audit';

/** One audit entry in the Audit view; selecting it opens its details. */
export class AuditItem extends vscode.TreeItem {
  constructor(readonly entry: AuditEntry) {
    super(entry.kind === 'consent' ? consentLabel(entry) : runLabel(entry), vscode.TreeItemCollapsibleState.None);
    this.contextValue = `auditEntry.${entry.kind}`;
    if (entry.kind === 'consent') {
      this.description = cleanLine(`${path.basename(entry.root)} · ${clockTime(entry.time)}`, 200);
      this.iconPath = lookup(CONSENT_ICONS, entry.decision) ?? UNKNOWN_ICON;
    } else {
      this.description = cleanLine(`${exitStatus(entry)} · ${entry.durationMs} ms · ${clockTime(entry.time)}`, 200);
      this.iconPath = lookup(DECISION_ICONS, entry.decision) ?? UNKNOWN_ICON;
    }
    this.tooltip = entryTooltip(entry);
    this.command = { command: 'garudaHooks.showAuditEntry', title: 'Show Details', arguments: [entry] };
  }
}

/**
 * The Audit view: the newest entries of audit.jsonl, whoever wrote them (this window, another
 * window, the CLI). It follows the file and its rotated copies; reading waits until the view asks.
 */
export class AuditTree implements vscode.TreeDataProvider<AuditItem>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<void>();
  private readonly disposables: vscode.Disposable[] = [this.changed];
  private entries: Promise<readonly AuditEntry[]> | undefined;
  private timer: NodeJS.Timeout | undefined;
  readonly onDidChangeTreeData = this.changed.event;

  constructor(private readonly ctx: Ctx) {
    const dir = vscode.Uri.file(path.dirname(ctx.audit.file));
    const watcher = vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(dir, `${path.basename(ctx.audit.file)}*`));
    // A burst of runs appends many lines at once: one reread for all of them.
    const follow = () => {
      clearTimeout(this.timer);
      this.timer = setTimeout(() => this.refresh(), FOLLOW_DELAY_MS);
    };
    this.disposables.push(watcher, watcher.onDidCreate(follow), watcher.onDidChange(follow), watcher.onDidDelete(follow));
  }

  refresh(): void {
    this.entries = undefined;
    this.changed.fire();
  }

  getTreeItem(item: AuditItem): vscode.TreeItem {
    return item;
  }

  async getChildren(item?: AuditItem): Promise<AuditItem[]> {
    if (item) return [];
    this.entries ??= this.ctx.audit.tail(AUDIT_VIEW_ENTRIES).then((entries) => entries.filter(isShowable).reverse());
    return (await this.entries).map((entry) => new AuditItem(entry));
  }

  dispose(): void {
    clearTimeout(this.timer);
    this.disposables.forEach((d) => d.dispose());
  }
}

/** The Audit view, its refresh action, and the details document of an entry. */
export function registerAuditTree(ctx: Ctx): AuditTree {
  const tree = new AuditTree(ctx);
  const details = new ReadOnlyDocuments(AUDIT_SCHEME);
  const view = vscode.window.createTreeView('garudaHooks.audit', { treeDataProvider: tree });
  ctx.subscriptions.push(
    tree,
    details,
    view,
    vscode.commands.registerCommand('garudaHooks.refreshAudit', () => tree.refresh()),
    vscode.commands.registerCommand('garudaHooks.showAuditEntry', (entry: AuditEntry | AuditItem) => showEntry(details, entry instanceof AuditItem ? entry.entry : entry)),
  );
  return tree;
}

/** The entry's every field and its cleaned output, in a read-only markdown document. */
function showEntry(details: ReadOnlyDocuments, entry: AuditEntry): Promise<vscode.TextEditor> {
  const title = entry.kind === 'consent' ? consentLabel(entry) : `${runLabel(entry)} → ${cleanLine(String(entry.decision), 40)}`;
  // Hooks that run together log the same second, often the same millisecond: the whole entry tells them apart.
  const key = createHash('sha256').update(JSON.stringify(entry)).digest('hex').slice(0, 16);
  return details.show(`${title} ${clockTime(entry.time)}.md`, key, `# ${title}\n\n${recordMarkdown(entry)}\n`);
}

const FOLLOW_DELAY_MS = 150;

const icon = (id: string, color: string) => new vscode.ThemeIcon(id, new vscode.ThemeColor(color));
const RED = 'testing.iconFailed';
const GREEN = 'testing.iconPassed';
const YELLOW = 'editorWarning.foreground';
const ORANGE = 'charts.orange';

const DECISION_ICONS: Record<AuditDecision, vscode.ThemeIcon> = {
  allow: icon('pass', GREEN),
  deny: icon('circle-slash', RED),
  feedback: icon('comment', YELLOW),
  continue: icon('debug-restart', YELLOW),
  error: icon('warning', ORANGE),
  deny_policy: icon('law', ORANGE),
};

const CONSENT_ICONS: Record<ConsentDecision, vscode.ThemeIcon> = {
  allow_once: icon('unlock', GREEN),
  remember: icon('workspace-trusted', GREEN),
  deny: icon('lock', RED),
  revoke: icon('discard', YELLOW),
};

/** An entry from a newer or foreign writer still shows, just without a decision colour. */
const UNKNOWN_ICON = new vscode.ThemeIcon('question');

const CONSENT_WORDS: Record<ConsentDecision, string> = {
  allow_once: 'allowed once',
  remember: 'always allowed',
  deny: 'denied',
  revoke: 'revoked',
};

/** Lines another writer got wrong are passed over, as the core passes over lines that are not JSON. */
function isShowable(entry: AuditEntry): boolean {
  if (typeof entry.root !== 'string') return false;
  return entry.kind === 'consent' || (typeof entry.event === 'string' && typeof entry.command === 'string');
}

function runLabel(entry: HookRunEntry): string {
  return cleanLine(entry.tool ? `${entry.event} ${entry.tool}` : entry.event, 120);
}

function consentWords(entry: ConsentEntry): string {
  return lookup(CONSENT_WORDS, entry.decision) ?? cleanLine(String(entry.decision), 40);
}

/** A table's value for a key read from the file: only the table's own keys count. */
function lookup<K extends string, V>(table: Record<K, V>, key: unknown): V | undefined {
  return typeof key === 'string' && Object.hasOwn(table, key) ? table[key as K] : undefined;
}

function consentLabel(entry: ConsentEntry): string {
  return `consent ${consentWords(entry)}`;
}

function entryTooltip(entry: AuditEntry): vscode.MarkdownString {
  // Everything from the file is cleaned: any process of this user can append to it.
  const tooltip = new vscode.MarkdownString();
  if (entry.kind === 'consent') {
    tooltip.appendText(`Project hooks ${consentWords(entry)}`);
  } else {
    tooltip.appendText(cleanLine(`${entry.source} ${entry.event} hook: ${entry.decision}, ${exitStatus(entry)}, ${entry.durationMs} ms`, 200));
    tooltip.appendCodeblock(cleanLine(entry.command, 1000), 'sh');
    if (typeof entry.reason === 'string') tooltip.appendText(`${cleanLine(entry.reason, 500)}\n`);
  }
  tooltip.appendText(`\n${cleanLine(entry.root, 300)}\n${cleanLine(entry.time, 40)}`);
  return tooltip;
}
