import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { GarudaHooksApi } from '../../src/api';
import { activeApi, EXTENSION_ID, folder, home, removeAllHooks, setUserHooks } from './helpers';

interface CliOutcome {
  readonly decision: string;
  readonly reason: string | null;
  readonly feedback: string | null;
  readonly continuations?: number;
}

/** The CLI's decision for a call in alpha, run with the window's GARUDA_HOME. */
function cli(args: string[]): Promise<CliOutcome> {
  const script = path.join(vscode.extensions.getExtension(EXTENSION_ID)!.extensionPath, 'dist', 'cli.js');
  const argv = [script, 'check', '--root', folder('alpha').uri.fsPath, ...args, '--json'];
  // Exit 2 (deny, continue) is an answer, not a failure: read stdout either way.
  return new Promise((resolve, reject) => {
    execFile(process.execPath, argv, { env: { ...process.env, GARUDA_HOME: home(), ELECTRON_RUN_AS_NODE: '1' } }, (_error, stdout, stderr) => {
      try {
        resolve(JSON.parse(stdout) as CliOutcome);
      } catch {
        reject(new Error(`the CLI printed no JSON: ${stdout}${stderr}`));
      }
    });
  });
}

describe('the agent API and its commands', () => {
  let api: GarudaHooksApi;
  before(async () => {
    api = await activeApi();
  });
  afterEach(() => removeAllHooks(api));

  it('gives the same decisions through the API, the commands and the CLI', async () => {
    await setUserHooks(api, {
      hooks: {
        preToolUse: [{ tools: ['bash(git push*)'], command: "echo 'Pushes need a review.' >&2; exit 2" }],
        postToolUse: [{ tools: ['edit_file'], command: "echo 'src/a.ts:1:1: warning Missing header' >&2; exit 2" }],
        stop: [{ command: "echo 'Run the tests first.' >&2; exit 2" }],
      },
    });
    const folderUri = folder('alpha').uri;
    const push = { tool: 'bash', input: { command: 'git status && git push' }, folder: folderUri };
    const edit = { tool: 'edit_file', input: { path: 'src/a.ts' }, folder: folderUri };

    const cliPre = await cli(['--event', 'preToolUse', '--tool', 'bash', '--input', JSON.stringify(push.input)]);
    for (const pre of [await api.preToolUse(push), await vscode.commands.executeCommand<{ decision: string; reason?: string }>('garudaHooks.preToolUse', push)]) {
      assert.deepEqual([pre.decision, pre.reason], [cliPre.decision, cliPre.reason]);
    }
    const cliPost = await cli(['--event', 'postToolUse', '--tool', 'edit_file', '--input', JSON.stringify(edit.input)]);
    for (const post of [await api.postToolUse(edit, null), await vscode.commands.executeCommand<{ feedback?: string }>('garudaHooks.postToolUse', edit, null)]) {
      assert.equal(post.feedback, cliPost.feedback);
    }
    const cliStop = await cli(['--event', 'stop', '--continuations', '0']);
    for (const [i, stop] of [await api.stop({ runId: 'parity-api' }), await vscode.commands.executeCommand<{ decision: string; reason?: string; continuations: number }>('garudaHooks.stop', { runId: 'parity-command' })].entries()) {
      assert.deepEqual([stop.decision, stop.reason, stop.continuations], [cliStop.decision, cliStop.reason, cliStop.continuations], `call ${i}`);
    }
    // Without hooks each run ends, which forgets its count; the edit's diagnostic goes with a passing run.
    await setUserHooks(api, { hooks: { postToolUse: [{ tools: ['edit_file'], command: 'true' }] } });
    await api.postToolUse(edit, null);
    await api.stop({ runId: 'parity-api' });
    await api.stop({ runId: 'parity-command' });
  });

  it('checks the arguments of its commands and says what to pass', async () => {
    await assert.rejects(Promise.resolve(vscode.commands.executeCommand('garudaHooks.preToolUse', { input: {} })), {
      name: 'TypeError',
      message: 'garudaHooks.preToolUse: tool: required string is missing. Pass {tool, input, folder?, toolCallId?, agent?, step?}.',
    });
    await assert.rejects(Promise.resolve(vscode.commands.executeCommand('garudaHooks.stop', { runId: 7 })), {
      message: 'garudaHooks.stop: runId: expected string, got 7. Pass {runId?, folder?, agent?, status?, submission?}.',
    });
  });

  it('takes a folder as a path in its commands', async () => {
    await setUserHooks(api, { hooks: { preToolUse: [{ command: 'echo "$GARUDA_PROJECT_DIR" >&2; exit 2' }] } });
    const beta = folder('beta').uri.fsPath;
    const pre = await vscode.commands.executeCommand<{ decision: string; reason?: string }>('garudaHooks.preToolUse', { tool: 'bash', input: { command: 'ls' }, folder: beta });
    assert.deepEqual([pre.decision, pre.reason], ['deny', beta]);
  });

  it('keeps a warm sandbox for the calls of a folder, while the CLI starts one per hook', async () => {
    // The network namespace is the warm sandbox's; each hook has a PID namespace of its own.
    await setUserHooks(api, { hooks: { preToolUse: [{ command: 'readlink /proc/self/ns/net >&2; exit 2' }] } });
    const call = { tool: 'bash', input: { command: 'ls' }, folder: folder('alpha').uri };
    const first = await api.preToolUse(call);
    const second = await api.preToolUse(call);
    const fromCli = await cli(['--event', 'preToolUse', '--tool', 'bash', '--input', JSON.stringify(call.input)]);
    assert.match(first.reason!, /^net:\[\d+\]$/);
    assert.equal(second.reason, first.reason);
    assert.match(fromCli.reason!, /^net:\[\d+\]$/);
    assert.notEqual(fromCli.reason, first.reason);
  });
});
