import * as path from 'node:path';
import * as vscode from 'vscode';
import { cleanLine, unwrapFeedback } from './core/clean';
import type { HookRun } from './core/decision';
import { feedbackSeverity, parseFeedbackLocations, type FeedbackSeverity } from './core/feedbackLocations';
import type { Ctx } from './ctx';

const SEVERITIES: Record<FeedbackSeverity, vscode.DiagnosticSeverity> = {
  error: vscode.DiagnosticSeverity.Error,
  warning: vscode.DiagnosticSeverity.Warning,
  info: vscode.DiagnosticSeverity.Information,
};
const SOURCE_CHARS = 40;

/**
 * postToolUse feedback about a file, from any caller (the tools, the API, the commands), as
 * diagnostics where the code is. Each post run for a file replaces what the last run for that file
 * reported, so a passing run clears it.
 */
export function registerFeedbackDiagnostics(ctx: Ctx): void {
  const diagnostics = new FeedbackDiagnostics(vscode.languages.createDiagnosticCollection('Garuda Hooks'));
  ctx.subscriptions.push(diagnostics);
  ctx.onDidRunHooks(({ outcome, set }) => {
    if (outcome.event === 'postToolUse' && outcome.target.kind === 'path') diagnostics.update(outcome.target.path, set.root, outcome.runs);
  }, null, ctx.subscriptions);
}

/** The one owner of the collection. Feedback after editing a.ts may land on b.ts, so it is kept per target. */
class FeedbackDiagnostics implements vscode.Disposable {
  /** target file → file the feedback names → its diagnostics. */
  private readonly byTarget = new Map<string, Map<string, vscode.Diagnostic[]>>();

  constructor(private readonly collection: vscode.DiagnosticCollection) {}

  update(target: string, root: string, runs: readonly HookRun[]): void {
    const files = new Map<string, vscode.Diagnostic[]>();
    for (const run of runs) {
      if (!run.feedback) continue;
      for (const [file, diagnostic] of toDiagnostics(unwrapFeedback(run.feedback), target, root, cleanLine(run.command, SOURCE_CHARS))) {
        files.set(file, [...(files.get(file) ?? []), diagnostic]);
      }
    }
    const touched = new Set([...(this.byTarget.get(target)?.keys() ?? []), ...files.keys()]);
    if (files.size > 0) this.byTarget.set(target, files);
    else this.byTarget.delete(target);
    for (const file of touched) this.refresh(file);
  }

  private refresh(file: string): void {
    const all = [...this.byTarget.values()].flatMap((files) => files.get(file) ?? []);
    this.collection.set(vscode.Uri.file(file), all.length > 0 ? all : undefined);
  }

  dispose(): void {
    this.collection.dispose();
  }
}

/** Located lines land on their files; feedback without any becomes one diagnostic at the top of the target. */
function toDiagnostics(text: string, target: string, root: string, source: string): [string, vscode.Diagnostic][] {
  const located = parseFeedbackLocations(text);
  if (located.length === 0) return [[target, diagnostic(new vscode.Range(0, 0, 0, 0), text, feedbackSeverity(text), source)]];
  return located.map((location) => {
    const line = location.line - 1;
    // Without a column the whole line is meant; with one, the editor widens the empty range to the word there.
    const range = location.column === undefined ? new vscode.Range(line, 0, line + 1, 0) : new vscode.Range(line, location.column - 1, line, location.column - 1);
    const found = diagnostic(range, location.message, location.severity, source);
    if (location.code !== undefined) found.code = location.code;
    return [path.resolve(root, location.file), found];
  });
}

function diagnostic(range: vscode.Range, message: string, severity: FeedbackSeverity, source: string): vscode.Diagnostic {
  const found = new vscode.Diagnostic(range, message, SEVERITIES[severity]);
  found.source = source;
  return found;
}
