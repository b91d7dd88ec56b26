import assert from 'node:assert/strict';
import { parseHooksFile } from '../../src/core/hookConfig';
import { codeBlock, hooksSummary, inlineCode, previewMarkdown, textPreview } from '../../src/core/toolPreview';

const hooks = parseHooksFile(
  JSON.stringify({ hooks: { preToolUse: [{ command: 'echo "no `push`" >&2; exit 2' }], postToolUse: [{ command: 'npx eslint "$GARUDA_FILE"\u202E' }] } }),
  '/home/u/.garuda/hooks.json',
  'user',
).hooks;

describe('previewMarkdown', () => {
  it('shows the action, then every hook with its role, source and whole command', () => {
    assert.equal(
      previewMarkdown('Run in `alpha`:', hooks),
      [
        'Run in `alpha`:',
        '',
        '**Hooks that will run:**',
        '- guard, before (user hooks): ``echo "no `push`" >&2; exit 2``',
        '- check, after (user hooks): `npx eslint "$GARUDA_FILE"\\u{202E}`',
      ].join('\n'),
    );
  });

  it('says when no hook matches and when hooks are turned off', () => {
    assert.equal(previewMarkdown('Read `a.ts`.', []), 'Read `a.ts`.\n\n_No hook matches this call._');
    assert.equal(previewMarkdown('Read `a.ts`.', undefined), 'Read `a.ts`.\n\n_Garuda Hooks is turned off (`garudaHooks.enabled`): no hook runs._');
  });
});

describe('hooksSummary', () => {
  it('names the hooks in one line', () => {
    assert.equal(hooksSummary(hooks), '2 hooks: ``echo "no `push`" >&2; exit 2`` (guard, before), `npx eslint "$GARUDA_FILE"\\u{202E}` (check, after)');
    assert.equal(hooksSummary([]), 'no hook matches');
    assert.equal(hooksSummary(undefined), 'hooks off');
  });
});

describe('codeBlock', () => {
  it('uses a fence longer than any backtick run inside', () => {
    assert.equal(codeBlock('echo ```x```', 'sh'), '````sh\necho ```x```\n````');
    assert.equal(codeBlock('ls'), '```\nls\n```');
  });
});

describe('inlineCode', () => {
  it('pads text that starts or ends with a backtick', () => {
    assert.equal(inlineCode('`a`'), '`` `a` ``');
  });
});

describe('textPreview', () => {
  it('shows the first 30 lines and counts the rest', () => {
    const text = Array.from({ length: 32 }, (_, i) => `line ${i + 1}`).join('\n');
    const preview = textPreview(text);
    assert.ok(preview.startsWith('```\nline 1\n'));
    assert.ok(preview.endsWith('line 30\n```\n… and 2 more lines'));
  });
});
