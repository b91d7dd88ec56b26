import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { GarudaHooksApi } from '../../src/api';
import { canonicalRoot, revokeConsent } from '../../src/core/consent';

export const EXTENSION_ID = 'garuda.garuda-hooks';

/** The extension under test, activated, with its hooks loaded. */
export async function activeApi(): Promise<GarudaHooksApi> {
  const extension = vscode.extensions.getExtension<GarudaHooksApi>(EXTENSION_ID);
  if (!extension) throw new Error(`${EXTENSION_ID} is not installed in the test host`);
  const api = await extension.activate();
  await api.ready;
  return api;
}

export const home = (): string => {
  const value = process.env.GARUDA_HOME;
  if (!value) throw new Error('GARUDA_HOME is not set in the extension host: the test runner must set it');
  return value;
};

export function folder(name: string): vscode.WorkspaceFolder {
  const found = vscode.workspace.workspaceFolders?.find((f) => f.name === name);
  if (!found) throw new Error(`workspace folder ${name} is missing`);
  return found;
}

export const userHooksFile = () => path.join(home(), 'hooks.json');
export const projectHooksFile = (name: string) => path.join(folder(name).uri.fsPath, '.garuda', 'hooks.json');

export async function writeFile(file: string, content: unknown): Promise<void> {
  await fs.mkdir(path.dirname(file), { recursive: true });
  await fs.writeFile(file, typeof content === 'string' ? content : JSON.stringify(content, null, 2));
}

export async function removeFile(file: string): Promise<void> {
  await fs.rm(file, { force: true });
}

/** Polls until `check` holds; file watchers and reloads are asynchronous. Fails with `what`. */
export async function eventually<T>(what: string, check: () => T | Promise<T>, ms = 10_000): Promise<NonNullable<T>> {
  const end = Date.now() + ms;
  let last: T | undefined;
  while (Date.now() < end) {
    last = await check();
    if (last) return last as NonNullable<T>;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`Timed out waiting for: ${what} (last value: ${JSON.stringify(last)})`);
}

/** What each test leaves behind, undone: user and project hooks files and stored consent (suites share one window). */
export async function removeAllHooks(api: GarudaHooksApi): Promise<void> {
  await removeFile(userHooksFile());
  for (const name of ['alpha', 'beta']) {
    await removeFile(projectHooksFile(name));
    await revokeConsent(home(), await canonicalRoot(folder(name).uri.fsPath));
  }
  // A reload that sees no files ends this window's consent answers too, so tests start afresh.
  await vscode.commands.executeCommand('garudaHooks.reloadHooks');
  await eventually('no hooks left active', () => api.activeHooks().length === 0);
}

/** Writes the user hooks and waits until the extension, through its file watcher, runs exactly these. */
export async function setUserHooks(api: GarudaHooksApi, document: { hooks: Record<string, { command: string; tools?: string[] }[]>; maxStopContinuations?: number }): Promise<void> {
  await writeFile(userHooksFile(), document);
  const commands = Object.values(document.hooks).flat().map((hook) => hook.command).join('\n');
  await eventually(`the user hooks ${commands}`, () => api.activeHooks().map((hook) => hook.command).join('\n') === commands);
}

/** A language-model tool call as an agent outside a chat makes it (no invocation token); its text answer. */
export async function invokeTool(name: string, input: unknown, token?: vscode.CancellationToken): Promise<string> {
  const result = await vscode.lm.invokeTool(name, { input: input as object, toolInvocationToken: undefined }, token);
  return result.content.map((part) => (part as { value?: unknown }).value).join('');
}
