import assert from 'node:assert/strict';
import { feedbackSeverity, parseFeedbackLocations, type FeedbackLocation } from '../../src/core/feedbackLocations';

// Output captured from the real tools (paths shortened), as a post hook would print it.
describe('parseFeedbackLocations', () => {
  it('reads the issue example, path:line:col followed by a severity word', () => {
    assert.deepEqual(parseFeedbackLocations('src/a.ts:3:5: error Unexpected var'), [
      { file: 'src/a.ts', line: 3, column: 5, severity: 'error', message: 'Unexpected var' },
    ]);
  });

  it('reads tsc output with its error codes', () => {
    const tsc = [
      "src/a.ts(3,5): error TS2322: Type 'string' is not assignable to type 'number'.",
      "src/lib/b.ts(10,1): error TS1005: ';' expected.",
    ].join('\n');
    assert.deepEqual(parseFeedbackLocations(tsc), [
      { file: 'src/a.ts', line: 3, column: 5, severity: 'error', code: 'TS2322', message: "Type 'string' is not assignable to type 'number'." },
      { file: 'src/lib/b.ts', line: 10, column: 1, severity: 'error', code: 'TS1005', message: "';' expected." },
    ]);
  });

  it('reads tsc --pretty output and ignores its code excerpt and summary', () => {
    const pretty = [
      "src/a.ts:3:7 - error TS2322: Type 'string' is not assignable to type 'number'.",
      '',
      "3 const x: number = 'a';",
      '        ~',
      '',
      '',
      'Found 1 error in src/a.ts:3',
    ].join('\n');
    assert.deepEqual(parseFeedbackLocations(pretty), [
      { file: 'src/a.ts', line: 3, column: 7, severity: 'error', code: 'TS2322', message: "Type 'string' is not assignable to type 'number'." },
    ]);
  });

  it('reads a tsc path that contains spaces', () => {
    assert.deepEqual(parseFeedbackLocations("src/my file.ts(2,1): error TS2304: Cannot find name 'y'."), [
      { file: 'src/my file.ts', line: 2, column: 1, severity: 'error', code: 'TS2304', message: "Cannot find name 'y'." },
    ]);
  });

  it('reads ESLint stylish blocks for several files, with their rules', () => {
    const stylish = [
      '',
      '/home/u/proj/src/a.ts',
      '  3:5   error    Unexpected var, use let or const instead  no-var',
      "  7:10  warning  'y' is assigned a value but never used    @typescript-eslint/no-unused-vars",
      '',
      '/home/u/proj/src/b.js',
      '  1:10  error  Parsing error: Unexpected token )',
      '',
      '✖ 3 problems (2 errors, 1 warning)',
      '  1 error and 0 warnings potentially fixable with the `--fix` option.',
    ].join('\n');
    assert.deepEqual(parseFeedbackLocations(stylish), [
      { file: '/home/u/proj/src/a.ts', line: 3, column: 5, severity: 'error', message: 'Unexpected var, use let or const instead', code: 'no-var' },
      { file: '/home/u/proj/src/a.ts', line: 7, column: 10, severity: 'warning', message: "'y' is assigned a value but never used", code: '@typescript-eslint/no-unused-vars' },
      { file: '/home/u/proj/src/b.js', line: 1, column: 10, severity: 'error', message: 'Parsing error: Unexpected token )' },
    ]);
  });

  it('puts an ESLint file-level warning at 0:0 on the first line', () => {
    const ignored = ['/p/dist/x.js', '  0:0  warning  File ignored because of a matching ignore pattern  '].join('\n');
    assert.deepEqual(parseFeedbackLocations(ignored), [
      { file: '/p/dist/x.js', line: 1, column: 1, severity: 'warning', message: 'File ignored because of a matching ignore pattern' },
    ]);
  });

  it('reads ESLint unix output, whose severity and rule come last', () => {
    assert.deepEqual(parseFeedbackLocations('/p/src/a.ts:3:5: Unexpected var, use let or const instead. [Error/no-var]'), [
      { file: '/p/src/a.ts', line: 3, column: 5, severity: 'error', message: 'Unexpected var, use let or const instead.', code: 'no-var' },
    ]);
  });

  it('reads gcc errors, warnings and notes and skips its context lines', () => {
    const gcc = [
      "a.c: In function 'main':",
      "a.c:3:5: error: 'x' undeclared (first use in this function)",
      '    3 |     x = 1;',
      '      |     ^',
      'a.c:3:5: note: each undeclared identifier is reported only once for each function it appears in',
      'a.c:5:1: warning: control reaches end of non-void function [-Wreturn-type]',
      '    5 | }',
      '      | ^',
    ].join('\n');
    const severities = parseFeedbackLocations(gcc).map((l: FeedbackLocation) => [l.line, l.severity, l.message]);
    assert.deepEqual(severities, [
      [3, 'error', "'x' undeclared (first use in this function)"],
      [3, 'info', 'each undeclared identifier is reported only once for each function it appears in'],
      [5, 'warning', 'control reaches end of non-void function [-Wreturn-type]'],
    ]);
  });

  it('reads a clang fatal error', () => {
    assert.deepEqual(parseFeedbackLocations("main.c:1:10: fatal error: 'missing.h' file not found"), [
      { file: 'main.c', line: 1, column: 10, severity: 'error', message: "'missing.h' file not found" },
    ]);
  });

  it('reads Go build errors, which carry no severity word, as errors', () => {
    const go = ['# example.com/app', './main.go:5:2: undefined: foo', './main.go:9:13: cannot use "a" (untyped string constant) as int value in assignment'].join('\n');
    assert.deepEqual(parseFeedbackLocations(go).map((l) => [l.file, l.line, l.column, l.severity]), [
      ['./main.go', 5, 2, 'error'],
      ['./main.go', 9, 13, 'error'],
    ]);
  });

  it('reads mypy lines, which have a line but no column', () => {
    assert.deepEqual(parseFeedbackLocations('src/app.py:12: error: Incompatible return value type (got "str", expected "int")  [return-value]\nFound 1 error in 1 file (checked 3 source files)'), [
      { file: 'src/app.py', line: 12, severity: 'error', message: 'Incompatible return value type (got "str", expected "int")  [return-value]' },
    ]);
  });

  it('reads ruff and ShellCheck (gcc format) lines', () => {
    const output = ['src/app.py:1:8: F401 [*] `os` imported but unused', 'deploy.sh:3:6: warning: Double quote to prevent globbing and word splitting. [SC2086]'].join('\n');
    assert.deepEqual(parseFeedbackLocations(output), [
      { file: 'src/app.py', line: 1, column: 8, severity: 'error', message: 'F401 [*] `os` imported but unused' },
      { file: 'deploy.sh', line: 3, column: 6, severity: 'warning', message: 'Double quote to prevent globbing and word splitting. [SC2086]' },
    ]);
  });

  it('reads rustc errors and warnings from their --> lines', () => {
    const rustc = [
      'warning: unused variable: `x`',
      ' --> src/main.rs:2:9',
      '  |',
      '2 |     let x = 1;',
      '  |         ^ help: if this is intentional, prefix it with an underscore: `_x`',
      '',
      'error[E0425]: cannot find value `y` in this scope',
      ' --> src/main.rs:3:13',
      '  |',
      '3 |     let z = y;',
      '  |             ^ not found in this scope',
      '',
      'error: could not compile `app` (bin "app") due to 1 previous error; 1 warning emitted',
    ].join('\n');
    assert.deepEqual(parseFeedbackLocations(rustc), [
      { file: 'src/main.rs', line: 2, column: 9, severity: 'warning', message: 'unused variable: `x`' },
      { file: 'src/main.rs', line: 3, column: 13, severity: 'error', code: 'E0425', message: 'cannot find value `y` in this scope' },
    ]);
  });

  it('reads a pytest failure line', () => {
    assert.deepEqual(parseFeedbackLocations('tests/test_app.py:12: AssertionError'), [{ file: 'tests/test_app.py', line: 12, severity: 'error', message: 'AssertionError' }]);
  });

  it('does not take times, URLs, prose or stack frames for locations', () => {
    const prose = [
      '12:30:45: build started',
      'http://localhost:8080: the server',
      'Warning: file.ts:3:4: looks odd',
      "In file included from a.c:1:",
      '    at Object.<anonymous> (src/a.test.ts:3:5)',
      'Error (3): nothing here',
      'Tests: 1 failed, 2 total',
    ].join('\n');
    assert.deepEqual(parseFeedbackLocations(prose), []);
  });

  it('finds nothing in feedback without positions', () => {
    assert.deepEqual(parseFeedbackLocations('3 tests failed. Run npm test to see them.'), []);
  });
});

describe('feedbackSeverity', () => {
  it('says error when the text mentions errors or failures', () => {
    assert.equal(feedbackSeverity('3 tests failed'), 'error');
    assert.equal(feedbackSeverity('Found 2 errors and 1 warning'), 'error');
  });

  it('says warning when the text mentions only warnings', () => {
    assert.equal(feedbackSeverity('1 warning: the bundle is large'), 'warning');
  });

  it('says info for anything else', () => {
    assert.equal(feedbackSeverity('Remember to update CHANGELOG.md'), 'info');
  });
});
