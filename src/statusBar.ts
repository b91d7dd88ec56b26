import * as vscode from 'vscode';
import type { Ctx } from './ctx';

/** The shield in the status bar: how many hooks guard this window, and whether anything needs the user. */
export function registerStatusBar(ctx: Ctx): void {
  const item = vscode.window.createStatusBarItem('garudaHooks.status', vscode.StatusBarAlignment.Left, 10);
  item.name = 'Garuda Hooks';
  item.command = 'garudaHooks.showActiveHooks';
  const update = () => {
    const summary = ctx.summary();
    if (!ctx.config.enabled) {
      item.text = '$(circle-slash) Hooks off';
      item.tooltip = 'Garuda Hooks is turned off (garudaHooks.enabled): no hook runs.';
      item.backgroundColor = undefined;
    } else {
      const attention = summary.problems + summary.pendingConsent > 0;
      item.text = `$(${attention ? 'warning' : 'shield'}) ${summary.active}`;
      const lines = [`Garuda Hooks: ${summary.active} active hook${summary.active === 1 ? '' : 's'}`];
      if (summary.problems > 0) lines.push(`${summary.problems} problem${summary.problems === 1 ? '' : 's'} in hooks.json`);
      if (summary.pendingConsent > 0) lines.push(`${summary.pendingConsent} project${summary.pendingConsent === 1 ? '' : 's'} waiting for your consent`);
      lines.push('Click to show the active hooks.');
      item.tooltip = lines.join('\n');
      item.backgroundColor = attention ? new vscode.ThemeColor('statusBarItem.warningBackground') : undefined;
    }
    item.show();
  };
  ctx.hooks.onDidChange(update, null, ctx.subscriptions);
  vscode.workspace.onDidChangeConfiguration((event) => ctx.config.affects(event) && update(), null, ctx.subscriptions);
  ctx.subscriptions.push(item);
  update();
}
