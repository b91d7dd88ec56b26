import { promises as fs } from 'node:fs';
import * as vscode from 'vscode';
import type { ConfigProblem } from './core/hookConfig';
import { uniqueProblems } from './core/hookSet';
import type { Ctx } from './ctx';
import { rangeOfPath, rangeOfSpan } from './jsonLocation';

/** Problems in hooks.json files as diagnostics on the offending key, refreshed on every reload. */
export function registerConfigDiagnostics(ctx: Ctx): void {
  const collection = vscode.languages.createDiagnosticCollection('garuda-hooks-config');
  ctx.subscriptions.push(collection);
  const refresh = async () => {
    const byFile = new Map<string, ConfigProblem[]>();
    for (const problem of uniqueProblems(ctx.sets())) byFile.set(problem.file, [...(byFile.get(problem.file) ?? []), problem]);
    const entries = await Promise.all([...byFile].map(async ([file, problems]) => [vscode.Uri.file(file), await toDiagnostics(file, problems)] as const));
    collection.clear();
    for (const [uri, diagnostics] of entries) collection.set(uri, diagnostics);
  };
  ctx.hooks.onDidChange(() => void refresh(), null, ctx.subscriptions);
  void refresh();
}

async function toDiagnostics(file: string, problems: readonly ConfigProblem[]): Promise<vscode.Diagnostic[]> {
  const text = await fs.readFile(file, 'utf8').catch(() => '');
  return problems.map((problem) => {
    const range = problem.offset !== undefined
      ? rangeOfSpan(text, problem.offset, 1)
      : rangeOfPath(text, problem.path, problem.message.startsWith('unknown key'));
    const diagnostic = new vscode.Diagnostic(range, problem.message, vscode.DiagnosticSeverity.Error);
    diagnostic.source = 'Garuda Hooks';
    return diagnostic;
  });
}
