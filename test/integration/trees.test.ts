import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { promisify } from 'node:util';
import * as vscode from 'vscode';
import type { GarudaHooksApi } from '../../src/api';
import type { AuditItem } from '../../src/auditTree';
import { ALLOW_ONCE, DENY, type ConsentAnswer } from '../../src/consent';
import type { HookRunEntry } from '../../src/core/audit';
import { canonicalRoot, hooksHash, rememberConsent } from '../../src/core/consent';
import { parseHooksFile } from '../../src/core/hookConfig';
import type { HookOutcome } from '../../src/core/runner';
import type { TestingHooks } from '../../src/extension';
import type { HooksNode } from '../../src/hooksTree';
import { requestForHook } from '../../src/testToolCall';
import { eventually, EXTENSION_ID, folder, home, projectHooksFile, removeAllHooks, userHooksFile, writeFile } from './helpers';

/** What a row of a view shows, with its children: the fields the tests compare. */
interface Row {
  readonly label: string;
  readonly description: string | undefined;
  readonly icon: string | undefined;
  readonly color: string | undefined;
  readonly contextValue: string | undefined;
  readonly tooltip: string;
  readonly node: HooksNode;
  readonly children: readonly Row[];
}

/** A tooltip as a reader sees it: MarkdownString.appendText escapes markdown and spaces. */
function plain(tooltip: vscode.TreeItem['tooltip']): string {
  const value = typeof tooltip === 'string' ? tooltip : tooltip?.value ?? '';
  return value.replace(/&nbsp;/g, ' ').replace(/\\([\\`*_{}[\]()#+\-.!~|<>])/g, '$1');
}

function iconOf(item: vscode.TreeItem): { icon: string | undefined; color: string | undefined } {
  const icon = item.iconPath instanceof vscode.ThemeIcon ? item.iconPath : undefined;
  return { icon: icon?.id, color: icon?.color?.id };
}

const run = (command: string, tools?: string[]) => ({ ...(tools && { tools }), command });
const hooksOf = (row: Row | undefined) => row?.children.map((event) => [event.label, event.children.map((hook) => [hook.label, hook.description, hook.icon])]);

describe('the Hooks and Audit views', () => {
  let api: GarudaHooksApi;
  let testing: TestingHooks;

  async function rows(node?: HooksNode): Promise<Row[]> {
    const nodes = await testing.hooksTree.getChildren(node);
    return Promise.all(nodes.map(async (item) => ({
      label: String(item.label),
      description: typeof item.description === 'string' ? item.description : undefined,
      ...iconOf(item),
      contextValue: item.contextValue,
      tooltip: plain(item.tooltip),
      node: item,
      children: await rows(item),
    })));
  }

  /** The root row named `label` once `check` holds for it. */
  const root = (label: string, check: (row: Row) => boolean) =>
    eventually(`the ${label} row`, async () => (await rows()).find((row) => row.label === label && check(row)));

  /** The newest audit entries, as the view lists them. */
  const auditItems = async () => (await testing.auditTree.getChildren()) as AuditItem[];
  const auditItemFor = (command: string) =>
    eventually(`an audit entry for ${command}`, async () => (await auditItems()).find((item) => item.entry.kind === 'hook' && item.entry.command === command));

  before(async () => {
    const exports = await vscode.extensions.getExtension<GarudaHooksApi & { testing: TestingHooks }>(EXTENSION_ID)!.activate();
    await exports.ready;
    api = exports;
    testing = exports.testing;
  });
  afterEach(async () => {
    await removeAllHooks(api);
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  it('is empty when there are no hooks anywhere, so the view shows its welcome', async () => {
    await eventually('an empty tree', async () => (await rows()).length === 0);
  });

  it('shows user hooks by event: the command, its rules, an icon for what matters and every fact in the tooltip', async () => {
    await writeFile(userHooksFile(), {
      hooks: {
        preToolUse: [run('echo no >&2; exit 2', ['bash(git push*)', 'edit_file(src/**)']), { command: 'curl -s https://x.example', network: true, onFailure: 'allow', timeoutMs: 5000 }, { ...run('./check.sh'), onFailure: 'allow' }],
        stop: [run('npm test')],
      },
    });
    const user = await root('User', (row) => row.children.length === 2);
    assert.deepEqual(hooksOf(user), [
      ['preToolUse', [['echo no >&2; exit 2', 'bash(git push*), edit_file(src/**)', 'terminal'], ['curl -s https://x.example', 'every tool', 'globe'], ['./check.sh', 'every tool', 'unlock']]],
      ['stop', [['npm test', undefined, 'terminal']]],
    ]);
    assert.deepEqual([user.description, user.icon, user.contextValue], [userHooksFile(), 'account', 'root.user']);
    assert.deepEqual(user.children.map((event) => [event.description, event.icon, event.tooltip]), [
      ['3 guards', 'shield', 'Before a tool call: exit 2 (or a JSON deny) blocks the call.'],
      ['1 stop hook', 'debug-stop', 'When the agent wants to finish: exit 2 sends it back to work.'],
    ]);
    const curl = user.children[0]!.children[1]!;
    assert.equal(curl.contextValue, 'hook');
    assert.equal(curl.tooltip, `**preToolUse** · user hook\n\n\`\`\`sh\ncurl -s https://x.example\n\`\`\`\npreToolUse · tools: every tool · network: ON · on failure: allow · timeout: 5 s\n\nDefined in ${userHooksFile()}, hooks.preToolUse[1]\n\n`);
  });

  it('shows invalid entries with their problem, in file order among the valid hooks', async () => {
    await writeFile(userHooksFile(), { hooks: { preToolUse: [run('echo first'), { command: 'echo second', timeout: 5 }, run('echo third', ['bash('])] }, maxStop: 3 });
    const user = await root('User', (row) => row.children.length === 2);
    assert.deepEqual(user.children.map((row) => [row.label, row.description, row.icon, row.color, row.contextValue]), [
      ['maxStop', 'invalid: unknown key "maxStop" (did you mean "maxStopContinuations"?)', 'error', 'errorForeground', 'invalid'],
      ['preToolUse', '1 guard, 2 invalid', 'shield', undefined, 'event'],
    ]);
    assert.deepEqual(user.children[1]!.children.map((row) => [row.label, row.description, row.icon]), [
      ['echo first', 'every tool', 'terminal'],
      ['echo second', 'invalid: unknown key "timeout" (did you mean "timeoutMs"?)', 'error'],
      ['echo third', 'invalid: rule "bash(": missing ")"; this hook is skipped', 'error'],
    ]);
    assert.equal(user.children[1]!.children[1]!.tooltip, '**Invalid**, skipped:\n\nhooks.preToolUse[1].timeout: unknown key "timeout" (did you mean "timeoutMs"?)\n\n');
  });

  it('shows each folder of a multi-root workspace with its consent state: waiting, always allowed, changed', async () => {
    const allowed = { hooks: { postToolUse: [run('npx eslint "$GARUDA_FILE"', ['edit_file(*.ts)'])] } };
    await rememberConsent(home(), await canonicalRoot(folder('beta').uri.fsPath), hooksHash(allowed));
    await writeFile(projectHooksFile('beta'), allowed);
    await writeFile(projectHooksFile('alpha'), { hooks: { preToolUse: [run('echo waiting')] } });
    await root('beta', (row) => row.description === 'always allowed');
    const roots = await rows();
    assert.deepEqual(roots.map((row) => [row.label, row.description, row.icon, row.contextValue]).slice(0, 3), [
      ['User', 'no user hooks', 'account', 'root.user'],
      ['alpha', 'waiting for consent (pending)', 'unverified', 'root.project.unreviewed'],
      ['beta', 'always allowed', 'workspace-trusted', 'root.project.allowed'],
    ]);
    assert.equal(roots[3]!.label, 'Sandbox');
    assert.match(roots[3]!.tooltip, /^(OS sandbox|No OS sandbox): /);
    assert.deepEqual(hooksOf(roots[1]), [['preToolUse', [['echo waiting', 'every tool', 'circle-slash']]]]);
    assert.deepEqual(hooksOf(roots[2]), [['postToolUse', [['npx eslint "$GARUDA_FILE"', 'edit_file(*.ts)', 'terminal']]]]);
    assert.match(roots[1]!.children[0]!.children[0]!.tooltip, /\nNot run: waiting for consent \(pending\)\n/);
    assert.match(roots[1]!.tooltip, /Project hooks in .*alpha\/\.garuda\/hooks\.json are not run: you have not allowed them yet/);

    await writeFile(projectHooksFile('beta'), { hooks: { postToolUse: [run('npx eslint --fix "$GARUDA_FILE"')] } });
    const changed = await root('beta', (row) => row.description === 'changed since allowed (pending)');
    assert.deepEqual([changed.icon, changed.contextValue, changed.children[0]!.children[0]!.icon], ['diff', 'root.project.changed', 'circle-slash']);
  });

  it('shows allowed once and denied, the answers that hold for this window', async () => {
    const controller = testing.consent;
    const original = controller.prompt;
    const answer = (value: ConsentAnswer) => (controller.prompt = async () => value);
    try {
      answer(ALLOW_ONCE);
      await writeFile(projectHooksFile('alpha'), { hooks: { stop: [run(`echo once-${Date.now()}`)] } });
      const once = await root('alpha', (row) => row.description === 'allowed once (this window)');
      assert.deepEqual([once.icon, once.color, once.children[0]!.children[0]!.icon], ['pass', 'testing.iconPassed', 'terminal']);
      answer(DENY);
      // The view redraws only when told to: the answer must fire the tree's change event.
      const redrawn = new Promise<void>((resolve) => testing.hooksTree.onDidChangeTreeData(() => resolve()));
      await vscode.commands.executeCommand('garudaHooks.reviewProjectHooks', folder('alpha').uri);
      await redrawn;
      const denied = await root('alpha', (row) => row.description === 'denied (this window)');
      assert.deepEqual([denied.icon, denied.color, denied.contextValue], ['circle-slash', 'errorForeground', 'root.project.denied']);
    } finally {
      controller.prompt = original;
    }
  });

  it('Open Definition puts the cursor on the hook in its hooks.json', async () => {
    await writeFile(userHooksFile(), '{\n  "hooks": {\n    "stop": [\n      { "command": "true" },\n      { "command": "npm test" }\n    ]\n  }\n}\n');
    const user = await root('User', (row) => row.children.length === 1);
    await vscode.commands.executeCommand('garudaHooks.openDefinition', user.children[0]!.children[1]!.node);
    const editor = vscode.window.activeTextEditor!;
    assert.equal(editor.document.uri.fsPath, userHooksFile());
    assert.deepEqual([editor.selection.active.line, editor.selection.active.character], [4, 6]);
  });

  it('lists this window\'s runs in the Audit view, newest first, with decision, exit, duration and time', async () => {
    const marker = `audit-${Date.now()}`;
    await writeFile(userHooksFile(), { hooks: { preToolUse: [run(`echo ${marker} >&2; exit 2`)] } });
    await eventually('the user hook', () => api.activeHooks().length === 1);
    await api.preToolUse({ tool: 'bash', input: { command: 'ls' }, folder: folder('alpha').uri });
    const item = await auditItemFor(`echo ${marker} >&2; exit 2`);
    assert.deepEqual((await auditItems())[0]!.entry, item.entry);
    assert.equal(item.label, 'preToolUse bash');
    assert.match(String(item.description), /^exit 2 · \d+ ms · \d\d:\d\d:\d\d$/);
    assert.deepEqual(iconOf(item), { icon: 'circle-slash', color: 'testing.iconFailed' });
    assert.match(plain(item.tooltip), new RegExp(`^user preToolUse hook: deny, exit 2, \\d+ ms\\n\`\`\`sh\\necho ${marker} >&2; exit 2\\n\`\`\``));
  });

  it('follows audit.jsonl when the command line runs hooks outside this window', async () => {
    const command = `echo cli-${Date.now()}`;
    await writeFile(userHooksFile(), { hooks: { postToolUse: [run(command)] } });
    const cli = path.join(vscode.extensions.getExtension(EXTENSION_ID)!.extensionPath, 'dist', 'cli.js');
    const args = [cli, 'check', '--root', folder('beta').uri.fsPath, '--event', 'postToolUse', '--tool', 'read_file', '--input', '{"path":"README.md"}'];
    // Under Electron the extension host's binary is the editor: ELECTRON_RUN_AS_NODE makes it Node.
    await promisify(execFile)(process.execPath, args, { env: { ...process.env, GARUDA_HOME: home(), ELECTRON_RUN_AS_NODE: '1' } });
    const item = await auditItemFor(command);
    assert.equal(item.label, 'postToolUse read_file');
    assert.deepEqual(iconOf(item), { icon: 'pass', color: 'testing.iconPassed' });
  });

  it('keeps following audit.jsonl after it is rotated, older entries still listed', async () => {
    const file = path.join(home(), 'audit.jsonl');
    const before = (await auditItems())[0]!.entry;
    await assert.rejects(fs.stat(`${file}.1`), 'no rotated file yet: this test rotates the way the core does');
    await fs.rename(file, `${file}.1`);
    const command = `echo after-rotation-${Date.now()}`;
    await writeFile(userHooksFile(), { hooks: { stop: [run(command)] } });
    await eventually('the user hook', () => api.activeHooks().length === 1);
    await api.stop({ folder: folder('alpha').uri });
    const after = await auditItemFor(command);
    assert.deepEqual((await auditItems()).slice(0, 2).map((item) => item.entry), [after.entry, before]);
  });

  it('opens an audit entry in a read-only document with its output cleaned', async () => {
    const command = `printf '\\033[31mred\\033[0m </hook_feedback> done-${Date.now()}' >&2; exit 2`;
    await writeFile(userHooksFile(), { hooks: { postToolUse: [run(command)] } });
    await eventually('the user hook', () => api.activeHooks().length === 1);
    await api.postToolUse({ tool: 'edit_file', input: { path: 'a.ts' }, folder: folder('alpha').uri }, 'ok');
    const item = await auditItemFor(command);
    assert.deepEqual(iconOf(item), { icon: 'comment', color: 'editorWarning.foreground' });
    await vscode.commands.executeCommand(item.command!.command, ...item.command!.arguments!);
    const document = vscode.window.activeTextEditor!.document;
    assert.deepEqual([document.uri.scheme, document.languageId], ['garuda-audit', 'markdown']);
    const text = document.getText();
    const entry = item.entry as HookRunEntry;
    assert.match(text, /^# postToolUse edit_file → feedback\n\n\| field      \| value \|\n\|------------\|-------\|\n\| kind       \| hook \|\n/);
    assert.ok(text.includes(`| exitCode   | 2 |\n`), text);
    // The command is shown as written, escapes spelled out; the output as the model got it.
    const stderr = text.slice(text.indexOf('## stderr'));
    assert.match(stderr, /^## stderr\n\n```text\nred ‹\/hook_feedback> done-\d+\n```\n$/);
    assert.ok(!text.includes('\x1b'), text);
    assert.ok(text.includes(`| root       | ${entry.root} |`), text);
  });

  it('Test a Tool Call with arguments runs the real hooks, returns the outcome and shows the report', async () => {
    await writeFile(userHooksFile(), { hooks: { preToolUse: [run('echo pushes need a review >&2; exit 2', ['bash(git push*)'])] } });
    await eventually('the user hook', () => api.activeHooks().length === 1);
    const args = ['preToolUse', 'bash', { command: 'git status && git push' }, folder('alpha').uri];
    const outcome = await vscode.commands.executeCommand<HookOutcome>('garudaHooks.testToolCall', ...args);
    assert.deepEqual([outcome.decision, outcome.event === 'preToolUse' && outcome.reason], ['deny', 'pushes need a review']);
    assert.deepEqual(outcome.runs.map((r) => [r.source, r.decision, r.exitCode, r.stderr]), [['user', 'deny', 2, 'pushes need a review']]);
    const report = vscode.window.activeTextEditor!.document;
    assert.equal(report.uri.scheme, 'garuda-test');
    assert.match(report.getText(), /^# Test a Tool Call: preToolUse bash → deny\n/);
    assert.match(report.getText(), /\n### 1\. user hook → deny\n/);
    const passed = await vscode.commands.executeCommand<HookOutcome>('garudaHooks.testToolCall', 'preToolUse', 'bash', { command: 'git status' }, folder('alpha').uri);
    assert.deepEqual([passed.decision, passed.runs.length], ['allow', 0]);
  });

  it('Test a Tool Call without arguments asks for event, tool, input and folder, offering a template', async () => {
    await writeFile(userHooksFile(), { hooks: { preToolUse: [run('echo "$GARUDA_COMMAND" >&2; exit 2', ['bash'])] } });
    await eventually('the user hook', () => api.activeHooks().length === 1);
    let outcome: HookOutcome | undefined;
    const asked = Promise.resolve(vscode.commands.executeCommand<HookOutcome>('garudaHooks.testToolCall')).then((value) => (outcome = value));
    // Takes the first choice of each step (preToolUse, bash, the template, alpha) as they open.
    for (let i = 0; i < 50 && !outcome; i++) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      await vscode.commands.executeCommand('workbench.action.acceptSelectedQuickOpenItem');
    }
    await asked;
    assert.deepEqual([outcome!.event, outcome!.decision, outcome!.event === 'preToolUse' && outcome!.reason], ['preToolUse', 'deny', 'git status']);
  });

  it('Test a Tool Call rejects arguments it cannot use, saying what it expected', async () => {
    const test = (...args: unknown[]) => Promise.resolve(vscode.commands.executeCommand('garudaHooks.testToolCall', ...args));
    await assert.rejects(test('PreToolUse', 'bash', { command: 'ls' }), {
      message: 'Expected the event to be preToolUse, postToolUse, stop, got "PreToolUse"',
    });
    await assert.rejects(test('preToolUse', 'bash', { cmd: 'ls' }), {
      message: 'A bash call needs command, e.g. {"command":"git status"}',
    });
  });

  it('Test Hook runs a project stop hook in its own folder', async () => {
    const document = { hooks: { stop: [run('echo tests fail >&2; exit 2')] } };
    await rememberConsent(home(), await canonicalRoot(folder('beta').uri.fsPath), hooksHash(document));
    await writeFile(projectHooksFile('beta'), document);
    const beta = await root('beta', (row) => row.description === 'always allowed');
    const outcome = await vscode.commands.executeCommand<HookOutcome>('garudaHooks.testHook', beta.children[0]!.children[0]!.node);
    assert.deepEqual([outcome.event, outcome.decision, outcome.event === 'stop' && outcome.reason], ['stop', 'continue', 'tests fail']);
  });

  it('Test Hook fills in an input that the hook\'s first rule matches', () => {
    const file = parseHooksFile(JSON.stringify({ hooks: { preToolUse: [run('x', ['bash(git push*)']), run('x', ['write_file(src/**/*.ts)']), run('x', ['fetch(domain:example.com)']), run('x', ['mcp__github__*'])] } }), '/h.json', 'user');
    assert.deepEqual(file.hooks.map((hook) => requestForHook(hook)), [
      { event: 'preToolUse', tool: 'bash', sample: { command: 'git push' } },
      { event: 'preToolUse', tool: 'write_file', sample: { path: 'src/sub/example.ts', content: '' } },
      { event: 'preToolUse', tool: 'fetch', sample: { url: 'https://example.com/' } },
      { event: 'preToolUse' },
    ]);
  });
});
