import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { createAuditLog, type AuditEntry } from '../../src/core/audit';
import { fixture, worker } from './helpers';

const run = promisify(execFile);

describe('audit', () => {
  let env: Awaited<ReturnType<typeof fixture>>;
  beforeEach(async () => {
    env = await fixture();
  });
  afterEach(() => env.cleanup());

  const consent = (root: string): AuditEntry => ({ kind: 'consent', time: new Date().toISOString(), root, decision: 'remember', hash: 'h' });

  it('appends one JSON line per entry to a private file and reads the newest back', async () => {
    const log = createAuditLog(env.home);
    for (const root of ['a', 'b', 'c']) await log.append(consent(root));
    assert.equal((await fs.stat(log.file)).mode & 0o777, 0o600);
    const lines = (await fs.readFile(log.file, 'utf8')).trim().split('\n');
    assert.deepEqual(lines.map((l) => JSON.parse(l).root), ['a', 'b', 'c']);
    assert.deepEqual((await log.tail(2)).map((e) => e.root), ['b', 'c']);
  });

  it('passes over lines it cannot read', async () => {
    const log = createAuditLog(env.home);
    await log.append(consent('a'));
    await fs.appendFile(log.file, 'not json\n{"half": \n');
    await log.append(consent('b'));
    assert.deepEqual((await log.tail(10)).map((e) => e.root), ['a', 'b']);
  });

  it('rotates past the size limit and still reads across generations', async () => {
    const log = createAuditLog(env.home, { maxBytes: 1000, keep: 2 });
    for (let i = 0; i < 30; i++) await log.append(consent(`r${i}`));
    const files = (await fs.readdir(env.home)).filter((f) => f.startsWith('audit.jsonl')).sort();
    assert.deepEqual(files, ['audit.jsonl', 'audit.jsonl.1', 'audit.jsonl.2']);
    for (const file of files) assert.ok((await fs.stat(path.join(env.home, file))).size < 1200);
    const newest = (await log.tail(5)).map((e) => e.root);
    assert.deepEqual(newest, ['r25', 'r26', 'r27', 'r28', 'r29']);
  });

  it('never interleaves or loses lines when several processes append at once', async () => {
    const writers = 6;
    const each = 150;
    await Promise.all(
      Array.from({ length: writers }, (_, w) => run(process.execPath, [worker('append-audit'), env.home, `w${w}`, String(each), String(10 * 1024 * 1024)])),
    );
    const lines = (await fs.readFile(path.join(env.home, 'audit.jsonl'), 'utf8')).trim().split('\n');
    assert.equal(lines.length, writers * each);
    const roots = new Set(lines.map((line) => JSON.parse(line).root as string));
    assert.equal(roots.size, writers * each);
  });

  it('loses no lines when concurrent appends rotate the log', async () => {
    const writers = 4;
    const each = 100;
    await Promise.all(
      Array.from({ length: writers }, (_, w) => run(process.execPath, [worker('append-audit'), env.home, `w${w}`, String(each), '20000'])),
    );
    const files = (await fs.readdir(env.home)).filter((f) => f.startsWith('audit.jsonl') && !f.endsWith('.lock'));
    const lines = (await Promise.all(files.map((f) => fs.readFile(path.join(env.home, f), 'utf8')))).join('').trim().split('\n');
    assert.equal(lines.length, writers * each);
    assert.equal(new Set(lines.map((line) => JSON.parse(line).root)).size, writers * each);
  });
});
