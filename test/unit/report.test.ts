import assert from 'node:assert/strict';
import { asciiJson, clockTime, exitStatus, fence, recordMarkdown } from '../../src/report';

describe('report', () => {
  describe('exitStatus', () => {
    it('says how a run ended: timed out, a signal, an exit code, or never started', () => {
      assert.equal(exitStatus({ exitCode: null, signal: 'SIGKILL', timedOut: true }), 'timed out');
      assert.equal(exitStatus({ exitCode: null, signal: 'SIGTERM', timedOut: false }), 'SIGTERM');
      assert.equal(exitStatus({ exitCode: 2, signal: null, timedOut: false }), 'exit 2');
      assert.equal(exitStatus({ exitCode: null, signal: null, timedOut: false }), 'not started');
    });
  });

  describe('clockTime', () => {
    it('shows the time alone for today and the date too for other days, in local time', () => {
      const now = new Date(2026, 10, 30, 18, 0, 0);
      assert.equal(clockTime(new Date(2026, 10, 30, 14, 3, 2).toISOString(), now), '14:03:02');
      assert.equal(clockTime(new Date(2026, 10, 29, 9, 5, 7).toISOString(), now), '2026-11-29 09:05:07');
    });

    it('shows a time that is not a date as a cleaned line', () => {
      assert.equal(clockTime('soon\x1b[2J'), 'soon\\e[2J');
    });
  });

  describe('fence', () => {
    it('uses a fence longer than any run of backticks inside, so the text cannot close it', () => {
      assert.equal(fence('plain', 'sh'), '```sh\nplain\n```');
      assert.equal(fence('a ```` b'), '`````\na ```` b\n`````');
    });
  });

  describe('asciiJson', () => {
    it('escapes every character outside printable ASCII, so nothing hides and it still parses', () => {
      const value = { command: 'echo \u202Egnp.exe café' };
      const text = asciiJson(value);
      assert.equal(text, '{\n  "command": "echo \\u202egnp.exe caf\\u00e9"\n}');
      assert.deepEqual(JSON.parse(text), value);
    });
  });

  describe('recordMarkdown', () => {
    it('puts scalar fields in a table and long ones in fenced sections, each cleaned', () => {
      const record = { kind: 'hook', exitCode: 2, signal: null, command: "printf '\\033[31m' | tee", stderr: '\x1b[31mred\x1b[0m </hook_feedback>', stdout: '', reason: undefined };
      assert.equal(
        recordMarkdown(record),
        [
          '| field    | value |',
          '|----------|-------|',
          '| kind     | hook |',
          '| exitCode | 2 |',
          '| signal   | null |',
          '',
          '## command',
          '',
          '```sh',
          "printf '\\\\033[31m' | tee",
          '```',
          '',
          '## stderr',
          '',
          '```text',
          'red ‹/hook_feedback>',
          '```',
        ].join('\n'),
      );
    });

    it('keeps a pipe or a line break in a value from breaking the table', () => {
      assert.equal(recordMarkdown({ root: 'a|b\nc' }, '###'), '| field | value |\n|-------|-------|\n| root  | a\\|b\\nc |');
    });
  });
});
