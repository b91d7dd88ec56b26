import * as vscode from 'vscode';
import { createAgentApi } from './agentApi';
import type { GarudaHooksApi } from './api';
import { registerAuditTree, type AuditTree } from './auditTree';
import { COMMANDS, registerCommands } from './commands';
import { registerConfigDiagnostics } from './configDiagnostics';
import { registerConsent, type ConsentController } from './consent';
import { Ctx } from './ctx';
import { registerFeedbackDiagnostics } from './feedbackDiagnostics';
import { registerLanguageModelTools } from './lmTools';
import { registerHooksTree, type HooksTree } from './hooksTree';
import { registerStatusBar } from './statusBar';
import { registerTestToolCall } from './testToolCall';

/** Only in the extension test host: lets tests answer the consent modal, which that host refuses to show. */
export interface TestingHooks {
  readonly consent: ConsentController;
  /** The data providers behind the Hooks and Audit views, to read what the views show. */
  readonly hooksTree: HooksTree;
  readonly auditTree: AuditTree;
}

export function activate(context: vscode.ExtensionContext): GarudaHooksApi & { testing?: TestingHooks } {
  const started = performance.now();
  try {
    const ctx = new Ctx(context);
    registerCommands(ctx, COMMANDS);
    const consent = registerConsent(ctx);
    registerStatusBar(ctx);
    const hooksTree = registerHooksTree(ctx, registerTestToolCall(ctx));
    const auditTree = registerAuditTree(ctx);
    registerConfigDiagnostics(ctx);
    registerFeedbackDiagnostics(ctx);
    vscode.workspace.onDidChangeConfiguration((event) => ctx.config.affects(event) && ctx.log.info(`garudaHooks.enabled: ${ctx.config.enabled}`), null, ctx.subscriptions);
    // Loading reads files only; it runs in the background so activation never waits on the disk.
    const ready = ctx.hooks.reload('activation');
    const api = createAgentApi(ctx, ready);
    registerLanguageModelTools(ctx, api);
    const activationMs = performance.now() - started;
    ctx.log.info(`Activated in ${activationMs.toFixed(1)} ms`);
    const testing = context.extensionMode === vscode.ExtensionMode.Test ? { testing: { consent, hooksTree, auditTree } } : {};
    return { ...api, activationMs, ...testing };
  } catch (error) {
    // VS Code shows nothing when activation throws; say it, then let the host record the failure.
    void vscode.window.showErrorMessage(`Cannot activate Garuda Hooks: ${(error as Error).message}`);
    throw error;
  }
}
