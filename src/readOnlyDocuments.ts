import * as vscode from 'vscode';

/**
 * Read-only documents the extension writes, under one URI scheme (`garuda-audit:`, `garuda-test:`).
 * The text lives here while its document is open; closing the document lets it go.
 */
export class ReadOnlyDocuments implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly texts = new Map<string, string>();
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  private readonly disposables: vscode.Disposable[];
  readonly onDidChange = this.changed.event;

  constructor(readonly scheme: string) {
    this.disposables = [
      this.changed,
      vscode.workspace.registerTextDocumentContentProvider(scheme, this),
      vscode.workspace.onDidCloseTextDocument((document) => this.texts.delete(document.uri.toString())),
    ];
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.texts.get(uri.toString()) ?? 'This document was closed; open it again from where it came from.';
  }

  /**
   * Shows `text` as `title` (its extension picks the language, e.g. `.md`). Documents with the same
   * title and `key` are one document, updated in place; a new key opens a new one.
   */
  async show(title: string, key: string, text: string): Promise<vscode.TextEditor> {
    // The title is the path's last segment, which is what the tab shows: no slash may split it.
    const uri = vscode.Uri.from({ scheme: this.scheme, path: `/${title.replace(/[/\\]/g, '∕')}`, query: key });
    this.texts.set(uri.toString(), text);
    this.changed.fire(uri);
    const document = await vscode.workspace.openTextDocument(uri);
    return vscode.window.showTextDocument(document, { preview: true });
  }

  dispose(): void {
    this.disposables.forEach((d) => d.dispose());
    this.texts.clear();
  }
}
