// The consent modal and the tree as a user meets them: the packaged .vsix installed into code-server,
// the demo workspace opened in Chromium with no test payload, and every step driven by clicks.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Page } from 'playwright-core';
const repo = path.resolve(__dirname, '../../..');
// Loaded from the repository at run time, not bundled: the host finds its install folder from its own path.
const { startCodeServer, launchBrowser, makeTempDir } = require(path.join(repo, 'test/host/codeServer.js'));
const { CODE_SERVER_BIN } = require(path.join(repo, 'test/host/install.js'));
const shots = path.join(repo, 'test/.artifacts/e2e');
const QUESTION = "Run this project's hooks?";

interface Session {
  page: Page;
  workspace: string;
  home: string;
  stop(): Promise<void>;
}

async function openDemo(trust = true): Promise<Session> {
  const base = makeTempDir('garuda-e2e-');
  const workspace = path.join(base, 'demo');
  const home = path.join(base, 'garuda-home');
  fs.cpSync(path.join(repo, 'test/fixtures/demo'), workspace, { recursive: true });
  fs.mkdirSync(home);
  const userDataDir = path.join(base, 'user-data');
  const extensionsDir = path.join(base, 'extensions');
  fs.mkdirSync(path.join(userDataDir, 'User'), { recursive: true });
  fs.writeFileSync(path.join(userDataDir, 'User/settings.json'), JSON.stringify({ 'workbench.startupEditor': 'none', 'workbench.tips.enabled': false }));
  const server = await startCodeServer({ workspace, userDataDir, extensionsDir, trust, env: { GARUDA_HOME: home } });
  // The packaged extension, installed the way a user installs a .vsix.
  execFileSync(CODE_SERVER_BIN, ['--extensions-dir', extensionsDir, '--install-extension', path.join(repo, 'garuda-hooks.vsix')], { stdio: 'pipe' });
  const browser = await launchBrowser();
  const page = await browser.newPage();
  await page.setViewportSize({ width: 1400, height: 900 });
  await page.goto(`${server.url}?folder=${encodeURIComponent(workspace)}`);
  return {
    page,
    workspace,
    home,
    stop: async () => {
      await browser.close();
      await server.stop();
      fs.rmSync(base, { recursive: true, force: true });
    },
  };
}

const dialog = (page: Page) => page.locator('.monaco-dialog-box');

async function answerModal(page: Page, button: string, shot: string): Promise<{ message: string; detail: string; focused: string }> {
  const box = dialog(page);
  await box.waitFor({ state: 'visible', timeout: 60_000 });
  const message = (await box.locator('.dialog-message-text').innerText()).trim();
  const detail = (await box.locator('.dialog-message-detail').innerText()).trim();
  // What Enter would press: the focused button.
  const focused = String(await page.evaluate('document.activeElement ? document.activeElement.innerText.trim() : ""'));
  await page.screenshot({ path: path.join(shots, shot) });
  await box.locator('.dialog-buttons a.monaco-button', { hasText: button }).click();
  await box.waitFor({ state: 'hidden' });
  return { message, detail, focused };
}

/** The rows of the Hooks view as text, once they match `expected` (the tree redraws after each reload). */
async function hooksTreeText(page: Page, expected: RegExp): Promise<string> {
  const view = page.locator('.pane', { has: page.locator('.pane-header', { hasText: /^Hooks/i }) });
  await view.locator('.monaco-list-row').first().waitFor({ timeout: 20_000 });
  let text = '';
  for (const end = Date.now() + 20_000; Date.now() < end; await page.waitForTimeout(100)) {
    text = (await view.locator('.monaco-list-rows').innerText()).replace(/\s+/g, ' ');
    if (expected.test(text)) break;
  }
  return text;
}

async function showGarudaView(page: Page): Promise<void> {
  await page.locator('.activitybar a.action-label[aria-label^="Garuda Hooks"]').click();
}

/** Expands every collapsed row of the Hooks view, so the screenshot shows each hook. */
async function expandAll(page: Page): Promise<void> {
  for (let i = 0; i < 20; i++) {
    const collapsed = page.locator('.pane .monaco-list-row[aria-expanded="false"]');
    if ((await collapsed.count()) === 0) return;
    await collapsed.first().click();
  }
}

describe('the consent modal and the tree, in code-server, as a user', function () {
  this.timeout(180_000);
  let session: Session;

  before(async () => {
    fs.mkdirSync(shots, { recursive: true });
    session = await openDemo();
  });
  after(async () => session?.stop());

  it('shows the real modal with the question and every command of the demo hooks', async () => {
    const { message, detail, focused } = await answerModal(session.page, 'Allow once', 'modal.png');
    assert.equal(message, QUESTION);
    assert.equal(focused, 'Deny', 'Enter must not run a cloned repository\'s hooks');
    const demo = JSON.parse(fs.readFileSync(path.join(session.workspace, '.garuda/hooks.json'), 'utf8'));
    for (const hook of [...demo.hooks.preToolUse, ...demo.hooks.postToolUse]) assert.ok(detail.includes(hook.command), `the modal does not show ${hook.command}`);
    assert.match(detail, /preToolUse · tools: bash\(git push\*\) · network: off · on failure: block/);
    assert.match(detail, /sandbox/i);
  });

  it('shows the project hooks active in the tree after Allow once', async () => {
    await showGarudaView(session.page);
    await expandAll(session.page);
    const text = await hooksTreeText(session.page, /allowed once/i);
    assert.match(text, /allowed once/i);
    assert.match(text, /Pushes need a review/);
    await session.page.screenshot({ path: path.join(shots, 'tree-allowed-once.png') });
  });

  it('asks again, saying the hooks changed, when hooks.json is edited', async () => {
    const file = path.join(session.workspace, '.garuda/hooks.json');
    const demo = JSON.parse(fs.readFileSync(file, 'utf8'));
    demo.hooks.stop = [{ command: 'npm test >&2 || exit 2' }];
    fs.writeFileSync(file, JSON.stringify(demo, null, 2));
    const { message, detail } = await answerModal(session.page, 'Deny', 'modal-changed.png');
    assert.equal(message, QUESTION);
    assert.match(detail, /changed since you allowed them/);
    assert.match(detail, /\+ added: stop/);
  });

  it('shows the project hooks denied in the tree after Deny', async () => {
    await expandAll(session.page);
    const text = await hooksTreeText(session.page, /denied/i);
    assert.match(text, /denied/i);
    await session.page.screenshot({ path: path.join(shots, 'tree-denied.png') });
  });
});

describe('Workspace Trust and the consent modal, as a user', function () {
  this.timeout(180_000);
  let session: Session | undefined;
  afterEach(async () => {
    await session?.stop();
    session = undefined;
  });

  it('keeps project hooks off in Restricted Mode without asking, and says so in the tree', async () => {
    session = await openDemo(false);
    const { message } = await answerModal(session.page, "No, I don't trust the authors", 'trust-question.png');
    assert.equal(message, 'Do you trust the authors of the files in this folder?');
    await showGarudaView(session.page);
    const text = await hooksTreeText(session.page, /Restricted Mode/);
    assert.match(text, /Restricted Mode/);
    await session.page.waitForTimeout(1000);
    assert.equal(await dialog(session.page).count(), 0, 'a dialog opened in Restricted Mode');
    await session.page.screenshot({ path: path.join(shots, 'tree-restricted.png') });
  });

  it('asks to run the project hooks once the folder is trusted', async () => {
    session = await openDemo(false);
    await answerModal(session.page, 'Yes, I trust the authors', 'trust-question.png');
    const { message } = await answerModal(session.page, 'Deny', 'modal-after-trust.png');
    assert.equal(message, QUESTION);
  });
});
