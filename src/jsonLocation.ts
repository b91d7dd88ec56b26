import { findNodeAtLocation, parseTree } from 'jsonc-parser';
import { promises as fs } from 'node:fs';
import * as vscode from 'vscode';

/**
 * The range of a JSON path in a hooks file: the key itself when `onKey` (an unknown key is the key's
 * fault, not its value's), else the value; the nearest existing parent when the path is missing.
 */
export function rangeOfPath(text: string, path: readonly (string | number)[], onKey = false): vscode.Range {
  const tree = parseTree(text);
  let span: [number, number] = [0, 1];
  for (let depth = path.length; tree && depth >= 0; depth--) {
    const node = findNodeAtLocation(tree, [...path.slice(0, depth)]);
    if (!node) continue;
    const key = onKey && depth === path.length && node.parent?.type === 'property' ? node.parent.children?.[0] : undefined;
    span = [(key ?? node).offset, (key ?? node).length];
    break;
  }
  return rangeOfSpan(text, span[0], span[1]);
}

export function rangeOfSpan(text: string, offset: number, length: number): vscode.Range {
  const position = (at: number) => {
    const before = text.slice(0, Math.min(at, text.length));
    const line = before.split('\n').length - 1;
    return new vscode.Position(line, before.length - (before.lastIndexOf('\n') + 1));
  };
  return new vscode.Range(position(offset), position(offset + Math.max(length, 1)));
}

/** Opens a hooks file with the cursor on a JSON path (a hook's definition, a problem). */
export async function revealJsonPath(file: string, path: readonly (string | number)[]): Promise<void> {
  const text = await fs.readFile(file, 'utf8').catch(() => '');
  const range = rangeOfPath(text, path);
  await vscode.window.showTextDocument(vscode.Uri.file(file), { selection: new vscode.Range(range.start, range.start) });
}
