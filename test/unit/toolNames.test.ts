import assert from 'node:assert/strict';
import * as path from 'node:path';
import { canonicalToolName, isPathTool, PATH_TOOLS, PATTERN_TOOLS, toolTarget } from '../../src/core/toolNames';

const ROOT = path.resolve('/work/project');

describe('canonicalToolName', () => {
  const aliases: [name: string, canonical: string][] = [
    ['Bash', 'bash'],
    ['Edit', 'edit_file'],
    ['MultiEdit', 'edit_file'],
    ['Write', 'write_file'],
    ['Read', 'read_file'],
    ['WebFetch', 'fetch'],
    ['run_in_terminal', 'bash'],
    ['replace_string_in_file', 'edit_file'],
    ['create_file', 'write_file'],
    ['read_file', 'read_file'],
  ];
  for (const [name, canonical] of aliases) {
    it(`maps ${name} to ${canonical}`, () => {
      assert.equal(canonicalToolName(name), canonical);
    });
  }

  it('keeps our own names, MCP names and unknown names unchanged', () => {
    for (const name of ['bash', 'edit_file', 'write_file', 'fetch', 'mcp__github__create_issue', 'grep', 'BASH']) {
      assert.equal(canonicalToolName(name), name);
    }
  });

  it('does not treat object property names as aliases', () => {
    assert.equal(canonicalToolName('constructor'), 'constructor');
    assert.equal(canonicalToolName('__proto__'), '__proto__');
  });
});

describe('tool lists', () => {
  it('lists the path tools and the tools that take a pattern', () => {
    assert.deepEqual(PATH_TOOLS, ['edit_file', 'write_file', 'read_file']);
    assert.deepEqual(PATTERN_TOOLS, ['bash', 'edit_file', 'write_file', 'read_file', 'fetch']);
  });

  it('tells path tools from the others', () => {
    assert.deepEqual(['edit_file', 'write_file', 'read_file', 'bash', 'fetch', 'Edit'].map(isPathTool), [true, true, true, false, false, false]);
  });
});

describe('toolTarget', () => {
  it('reads the command of a bash call', () => {
    assert.deepEqual(toolTarget('bash', { command: 'git push' }, ROOT), { kind: 'command', command: 'git push' });
  });

  it('reads the command of another agent\'s terminal tool', () => {
    assert.deepEqual(toolTarget('run_in_terminal', { command: 'ls' }, ROOT), { kind: 'command', command: 'ls' });
  });

  it('resolves a relative path against the root', () => {
    assert.deepEqual(toolTarget('edit_file', { path: 'src/a.ts' }, ROOT), {
      kind: 'path', path: path.join(ROOT, 'src', 'a.ts'), relative: 'src/a.ts',
    });
  });

  it('normalizes dot segments', () => {
    assert.deepEqual(toolTarget('read_file', { path: './src/../lib/./b.ts' }, ROOT), {
      kind: 'path', path: path.join(ROOT, 'lib', 'b.ts'), relative: 'lib/b.ts',
    });
  });

  it('keeps an absolute path inside the root and makes it relative', () => {
    const absolute = path.join(ROOT, 'docs', 'x.md');
    assert.deepEqual(toolTarget('write_file', { path: absolute }, ROOT), { kind: 'path', path: absolute, relative: 'docs/x.md' });
  });

  it('gives a ..-prefixed relative path for a file outside the root', () => {
    const outside = path.resolve('/etc/passwd');
    assert.deepEqual(toolTarget('read_file', { path: outside }, ROOT), { kind: 'path', path: outside, relative: '../../etc/passwd' });
    assert.deepEqual(toolTarget('read_file', { path: '../sibling/a.ts' }, ROOT), {
      kind: 'path', path: path.resolve(ROOT, '..', 'sibling', 'a.ts'), relative: '../sibling/a.ts',
    });
  });

  it('reads file_path and filePath when path is missing', () => {
    const expected = { kind: 'path', path: path.join(ROOT, 'a.ts'), relative: 'a.ts' };
    assert.deepEqual(toolTarget('Edit', { file_path: 'a.ts' }, ROOT), expected);
    assert.deepEqual(toolTarget('replace_string_in_file', { filePath: 'a.ts' }, ROOT), expected);
  });

  it('prefers path over file_path over filePath', () => {
    assert.deepEqual(toolTarget('edit_file', { path: 'a', file_path: 'b', filePath: 'c' }, ROOT), {
      kind: 'path', path: path.join(ROOT, 'a'), relative: 'a',
    });
    assert.deepEqual(toolTarget('edit_file', { file_path: 'b', filePath: 'c' }, ROOT), {
      kind: 'path', path: path.join(ROOT, 'b'), relative: 'b',
    });
  });

  it('reads the URL and lowercased host of a fetch call', () => {
    assert.deepEqual(toolTarget('fetch', { url: 'https://API.Example.com:8443/x?y=1' }, ROOT), {
      kind: 'url', url: 'https://api.example.com:8443/x?y=1', host: 'api.example.com',
    });
  });

  it('writes a URL one way: lowercase scheme and host, no default port, no trailing dot on the host', () => {
    const expected = { kind: 'url', url: 'https://example.com/x', host: 'example.com' };
    for (const url of ['HTTPS://example.com/x', 'https://example.com:443/x', 'https://example.com./x', 'https://EXAMPLE.com..:443/x']) {
      assert.deepEqual(toolTarget('fetch', { url }, ROOT), expected, url);
    }
  });

  it('gives an empty host for a URL without one', () => {
    assert.deepEqual(toolTarget('fetch', { url: 'file:///etc/passwd' }, ROOT), { kind: 'url', url: 'file:///etc/passwd', host: '' });
  });

  it('gives an empty host for a URL that does not parse', () => {
    assert.deepEqual(toolTarget('WebFetch', { url: 'not a url' }, ROOT), { kind: 'url', url: 'not a url', host: '' });
  });

  it('has no target when the field is missing or not a string', () => {
    assert.deepEqual(toolTarget('bash', {}, ROOT), { kind: 'none' });
    assert.deepEqual(toolTarget('bash', { command: 42 }, ROOT), { kind: 'none' });
    assert.deepEqual(toolTarget('edit_file', { path: '' }, ROOT), { kind: 'none' });
    assert.deepEqual(toolTarget('fetch', { uri: 'https://x.dev' }, ROOT), { kind: 'none' });
  });

  it('has no target when the input is not an object', () => {
    assert.deepEqual(toolTarget('bash', 'git push', ROOT), { kind: 'none' });
    assert.deepEqual(toolTarget('bash', null, ROOT), { kind: 'none' });
    assert.deepEqual(toolTarget('bash', undefined, ROOT), { kind: 'none' });
  });

  it('has no target for tools without one', () => {
    assert.deepEqual(toolTarget('mcp__github__create_issue', { path: 'a.ts', command: 'x' }, ROOT), { kind: 'none' });
  });
});
