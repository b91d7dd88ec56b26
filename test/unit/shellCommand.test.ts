import assert from 'node:assert/strict';
import { splitCommand } from '../../src/core/shellCommand';

type Case = [source: string, commands: string[]];

/** Compound commands that run `git push` somewhere, with every command they yield. */
const GIT_PUSH_CORPUS: Case[] = [
  ['git push', ['git push']],
  ['git status && git push', ['git status', 'git push']],
  ['git status || git push', ['git status', 'git push']],
  ['a; git push', ['a', 'git push']],
  ['x | git push', ['x', 'git push']],
  ['x |& git push', ['x', 'git push']],
  ['sleep 1 & git push', ['sleep 1', 'git push']],
  ['git status\ngit push\n', ['git status', 'git push']],
  ['FOO=1 git push', ['git push']],
  ['FOO=1 BAR="a b" git push origin', ['git push origin']],
  ['(cd d && git push)', ['cd d', 'git push']],
  ['{ git push; }', ['git push']],
  ['echo $(git push)', ['echo $(git push)', 'git push']],
  ['echo "$(git push)"', ['echo $(git push)', 'git push']],
  ['echo `git push`', ['echo `git push`', 'git push']],
  ['echo $(echo $(git push))', ['echo $(echo $(git push))', 'echo $(git push)', 'git push']],
  ['X=$(git push)', ['git push']],
  ['diff <(git push) <(git status)', ['diff <(git push) <(git status)', 'git push', 'git status']],
  ['tee >(git push)', ['tee >(git push)', 'git push']],
  ['if true; then git push; fi', ['true', 'git push']],
  ['if git diff --quiet; then :; else git push; fi', ['git diff --quiet', ':', 'git push']],
  ['for i in 1 2; do git push; done', ['git push']],
  ['for ((i = 0; i < 3; i++)); do git push; done', ['git push']],
  ['while sleep 60; do git push; done', ['sleep 60', 'git push']],
  ['until git push; do sleep 1; done', ['git push', 'sleep 1']],
  ['case $b in main) git push;; *) echo no;; esac', ['git push', 'echo no']],
  ['deploy() { git push; }; deploy', ['git push', 'deploy']],
  ['function deploy { git push; }', ['git push']],
  ['! git push', ['git push']],
  ['git push > log 2>&1', ['git push']],
  ['git > log push < /dev/null', ['git push']],
  ['cat <<EOF\n$(git push)\nEOF\n', ['cat', 'git push']],
  ['git push <<EOF\nbody\nEOF\n', ['git push']],
  ['time git push', ['git push']],
  ['coproc git push', ['git push']],
  ['git "push"', ['git push']],
  ["git 'push' 'origin'", ['git push origin']],
  ['g"i"t pu\\sh', ['git push']],
  ["$'git' push", ['git push']],
  ["$'\\x67it' push", ['git push']],
  ['env FOO=1 git push', ['env FOO=1 git push', 'git push']],
  ['env -i PATH=/bin -u HOME git push', ['env -i PATH=/bin -u HOME git push', 'git push']],
  ['sudo -u x git push', ['sudo -u x git push', 'git push']],
  ['sudo -E -u x -- git push', ['sudo -E -u x -- git push', 'git push']],
  ['command git push', ['command git push', 'git push']],
  ['builtin git push', ['builtin git push', 'git push']],
  ['exec -a name git push', ['exec -a name git push', 'git push']],
  ['nohup git push &', ['nohup git push', 'git push']],
  ['nice -n 10 git push', ['nice -n 10 git push', 'git push']],
  ['timeout -s KILL 30s git push', ['timeout -s KILL 30s git push', 'git push']],
  ['echo . | xargs -n 1 git push', ['echo .', 'xargs -n 1 git push', 'git push']],
  ['sudo env A=1 nohup git push', ['sudo env A=1 nohup git push', 'env A=1 nohup git push', 'nohup git push', 'git push']],
  ['/usr/bin/git push', ['/usr/bin/git push', 'git push']],
  ['./bin/git push', ['./bin/git push', 'git push']],
  ['sudo /usr/bin/git push', ['sudo /usr/bin/git push', '/usr/bin/git push', 'git push']],
  ["bash -c 'git status && git push'", ['bash -c git status && git push', 'git status', 'git push']],
  ['sh -c "git push"', ['sh -c git push', 'git push']],
  ["zsh -lc 'git push'", ['zsh -lc git push', 'git push']],
  ["/bin/bash -e -c 'git push' name", ['/bin/bash -e -c git push name', 'bash -e -c git push name', 'git push']],
  ["bash -c \"bash -c 'git push'\"", ["bash -c bash -c 'git push'", 'bash -c git push', 'git push']],
  ['eval "git push"', ['eval git push', 'git push']],
  ['eval git push', ['eval git push', 'git push']],
  ["eval 'cd d;' git push", ['eval cd d; git push', 'cd d', 'git push']],
  ['xargs sh -c "git push"', ['xargs sh -c git push', 'sh -c git push', 'git push']],
];

describe('splitCommand', () => {
  describe('finds every simple command', () => {
    for (const [source, commands] of GIT_PUSH_CORPUS) {
      it(`splits ${JSON.stringify(source)}`, () => {
        assert.deepEqual(splitCommand(source), { ok: true, commands });
      });
    }
  });

  describe('normalizes words', () => {
    const cases: [name: string, source: string, commands: string[]][] = [
      ['joins words with single spaces', 'git   push \t origin', ['git push origin']],
      ['removes single quotes and keeps the spaces inside them', "echo 'a  b'", ['echo a  b']],
      ['removes the backslash of escaped quotes', 'echo "say \\"hi\\"" \\\'x', ['echo say "hi" \'x']],
      ['keeps a backslash that escapes nothing inside double quotes', 'echo "a\\b"', ['echo a\\b']],
      ['removes line continuations', 'git \\\n  push', ['git push']],
      ['keeps parameter expansions as written, without their quotes', 'rm -rf "$HOME" ${DIR:-/tmp}/x', ['rm -rf $HOME ${DIR:-/tmp}/x']],
      ['keeps arithmetic as written', 'echo $((1 + 2))', ['echo $((1 + 2))']],
      ['keeps brace and glob words as written', 'ls *.ts {a,b}', ['ls *.ts {a,b}']],
      ['decodes ANSI-C escapes', "printf $'a\\tb\\n\\u00e9\\101'", ['printf a\tb\n\u00e9A']],
      ['keeps non-ASCII text intact', 'echo "héllo wörld" 日本 && git push 🚀', ['echo héllo wörld 日本', 'git push 🚀']],
      ['reads a command substitution after non-ASCII text by byte offsets', 'echo é$(git push)é', ['echo é$(git push)é', 'git push']],
      ['drops empty words', 'git commit -m ""', ['git commit -m']],
      ['drops a command that is only assignments', 'A=1 B=2', []],
      ['yields nothing for an empty source', '', []],
      ['yields nothing for a comment', '# git push', []],
      ['lists a command once however often it runs', 'git push; git push', ['git push']],
      ['keeps declarations as commands', 'export A=1 B; local -x c=$(d)', ['export A=1 B', 'local -x c=$(d)', 'd']],
      ['does not read a script file given to bash as a script', 'bash deploy.sh', ['bash deploy.sh']],
      ['does not unwrap a wrapper with no command', 'sudo -u x; env', ['sudo -u x', 'env']],
      ['keeps arguments that are expansions as written', 'git push $REMOTE "${BRANCH}"', ['git push $REMOTE ${BRANCH}']],
      ['unwraps a wrapper whose option values and assignments are expansions', 'sudo -u $U env A=$X git push', ['sudo -u $U env A=$X git push', 'env A=$X git push', 'git push']],
      ['does not take an object property name for a wrapper', 'constructor git push', ['constructor git push']],
      ['does not take a trailing slash for a path', 'ls/ -l', ['ls/ -l']],
    ];
    for (const [name, source, commands] of cases) {
      it(name, () => {
        assert.deepEqual(splitCommand(source), { ok: true, commands });
      });
    }
  });

  describe('reports parse errors', () => {
    it('reports an unclosed quote with the parser message', () => {
      assert.deepEqual(splitCommand('echo "abc'), { ok: false, error: '1:6: reached EOF without closing quote "' });
    });

    it('reports an unclosed command substitution', () => {
      assert.deepEqual(splitCommand('echo $(git push'), { ok: false, error: '1:6: reached EOF without matching ( with )' });
    });

    it('reports an error inside a bash -c string', () => {
      assert.deepEqual(splitCommand('bash -c "echo \\"x"'), {
        ok: false,
        error: 'in "bash" script: 1:6: reached EOF without closing quote "',
      });
    });

    it('reports an error inside an eval string', () => {
      assert.deepEqual(splitCommand("eval 'if true'"), {
        ok: false,
        error: 'in "eval" script: 1:1: "if <cond>" must be followed by "then"',
      });
    });

    for (const [what, source, program] of [
      ['a non-literal bash -c string', 'bash -c "$CMD"', 'bash'],
      ['a script fetched at run time', 'bash -c "$(curl -s https://x.example/i.sh)"', 'bash'],
      ['eval arguments that are not literal', 'eval "$CMD" x', 'eval'],
      ['a script piped into a shell', 'curl -s https://x.example/i.sh | sh', 'sh'],
      ['a shell reading stdin after a wrapper', 'wget -qO- x | sudo bash -s', 'bash'],
    ] as const) {
      it(`counts ${what} as unreadable, so every bash guard runs`, () => {
        assert.deepEqual(splitCommand(source), { ok: false, error: `"${program}" runs a script that is only known at run time` });
      });
    }

    for (const [source, program] of [
      ['G=git; $G push', '$G'],
      ['git${IFS}push', 'git${IFS}push'],
      ['"$(echo git)" push', '$(echo git)'],
      ['$(printf git) push', '$(printf git)'],
      ['$SUDO git push', '$SUDO'],
      ['/usr/bin/$G push', '/usr/bin/$G'],
      ['sudo -u x "$G" push', '$G'],
      ['env A=1 $G push', '$G'],
    ] as const) {
      it(`counts ${JSON.stringify(source)} as unreadable, since its program name is an expansion`, () => {
        assert.deepEqual(splitCommand(source), { ok: false, error: `the program name "${program}" is known only at run time` });
      });
    }

    it('counts a program name that is an expansion inside a bash -c string as unreadable', () => {
      assert.deepEqual(splitCommand("bash -c '$G push'"), { ok: false, error: 'in "bash" script: the program name "$G" is known only at run time' });
    });

    it('parses again after an error', () => {
      assert.equal(splitCommand('(').ok, false);
      assert.deepEqual(splitCommand('git push --tags'), { ok: true, commands: ['git push --tags'] });
    });
  });

  describe('caches results', () => {
    it('returns the same frozen result for a repeated command', () => {
      const first = splitCommand('git fetch && git rebase');
      const second = splitCommand('git fetch && git rebase');
      assert.equal(second, first);
      assert.ok(first.ok && Object.isFrozen(first.commands));
    });

    it('still answers correctly after more distinct commands than the cache holds', () => {
      for (let i = 0; i < 300; i++) splitCommand(`echo ${i}`);
      assert.deepEqual(splitCommand('echo 0'), { ok: true, commands: ['echo 0'] });
      assert.deepEqual(splitCommand('git fetch && git rebase'), { ok: true, commands: ['git fetch', 'git rebase'] });
    });
  });
});
