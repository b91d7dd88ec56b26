import * as vscode from 'vscode';

const SECTION = 'garudaHooks';

/** Typed access to the extension's settings; read on use, so a change needs no copy to refresh. */
export class Config {
  get enabled(): boolean {
    return this.get<boolean>('enabled') ?? true;
  }

  /** Whether a configuration change touches these settings. */
  affects(event: vscode.ConfigurationChangeEvent): boolean {
    return event.affectsConfiguration(SECTION);
  }

  private get<T>(key: string): T | undefined {
    return vscode.workspace.getConfiguration(SECTION).get<T>(key);
  }
}
