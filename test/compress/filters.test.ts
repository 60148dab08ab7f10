import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { classifyCommand, commandText } from '../../src/compress/filters/classify.js';
import { trimOutput } from '../../src/compress/filters/index.js';
import { cutMiddle } from '../../src/compress/filters/head-tail.js';
import { stripLineNumbers } from '../../src/compress/filters/line-numbers.js';
import { collapseRepeats } from '../../src/compress/filters/repeats.js';
import { factorLogColumns } from '../../src/compress/filters/log-columns.js';
import { jsonRecordsAsRows } from '../../src/compress/filters/json.js';
import { fixtureText, observations } from './helpers/fixtures.js';

const strip = { stripLineNumbers: true };
const keep = { stripLineNumbers: false };

describe('command classification', () => {
  it('recognises runners behind cd, env vars, timeout and pipes', () => {
    assert.equal(classifyCommand('cd /testbed && PYTHONPATH=. timeout 60 pytest -x tests | tail -50'), 'test');
    assert.equal(classifyCommand('npm run test -- --watch=false'), 'test');
    assert.equal(classifyCommand('pip install -e .[dev]'), 'install');
    assert.equal(classifyCommand('git diff HEAD~1'), 'git-diff');
    assert.equal(classifyCommand('git status'), 'git-status');
    assert.equal(classifyCommand('npx tsc -p tsconfig.json --noEmit'), 'build');
    assert.equal(classifyCommand('rg -n precision src'), 'search');
    assert.equal(classifyCommand('find . -name "*.py"'), 'list');
    assert.equal(classifyCommand('python reproduce.py'), 'shell');
  });

  it('tells the file reads and ranged views Codex runs through its shell from other commands', () => {
    for (const read of [
      "sed -n '61,141p' src/server/start.ts",
      'nl -ba src/compress/index.ts',
      "nl -ba src/compress/index.ts | sed -n '1,200p'",
      'cat -n package.json',
      'cd /repo && head -n 80 README.md',
      'tail -40 CHANGELOG.md',
    ])
      assert.equal(classifyCommand(read), 'read', read);
    assert.equal(classifyCommand('nl -ba src/a.ts | grep -A 10 "def run"'), 'read');
    assert.equal(classifyCommand('rg --files -g "*.ts" src'), 'list');
    assert.equal(classifyCommand("apply_patch <<'PATCH'\n*** Begin Patch\n*** End Patch\nPATCH"), 'other');
    // Piped into, head/tail/sed cut another command's output: that output is what it is.
    assert.equal(classifyCommand('python reproduce.py 2>&1 | tail -20'), 'shell');
    assert.equal(classifyCommand('npm run build 2>&1 | head -50'), 'build');
    assert.equal(classifyCommand("cat > notes.txt <<'EOF'\nhello\nEOF"), 'shell');
    // A heredoc's body is a file's text: its lines are not commands; what runs after it is.
    assert.equal(classifyCommand("cat <<'EOF' > t.py\npytest -q\nEOF\npython t.py"), 'shell');
    assert.equal(classifyCommand("cat <<'EOF' > t.py\nprint(1)\nEOF\nmypy t.py"), 'build');
    // grep over another command's output: that output, filtered (no file:line rows to group).
    assert.equal(classifyCommand('strings disk.img | grep flag'), 'shell');
  });

  it('reads the command out of a Codex argv array', () => {
    assert.equal(commandText(['bash', '-lc', 'pytest -q']), 'pytest -q');
    assert.equal(commandText(['ls', '-la']), 'ls -la');
  });
});

describe('tool_result_trimming filters', () => {
  it('pytest: drops passing rows, keeps the failure, its assertion and the summary', () => {
    const out = trimOutput(fixtureText('pytest-verbose-failure.txt'), 'test', keep);
    assert.ok(!out.includes('test_field_3 PASSED'));
    assert.match(out, /FAILED tests\/test_fields.py::test_timedelta_precision/);
    assert.match(out, /E {7}AssertionError: assert 344 == 345/);
    assert.match(out, /1 failed, 47 passed/);
    assert.match(out, /\[… removed \d+ passing-test and progress lines\]/);
  });

  it('pip install (real SWE-agent output): counts routine lines, keeps the outcome', () => {
    const { command, output } = observations.pip_install;
    const out = trimOutput(output, classifyCommand(command), keep);
    assert.ok(out.length < output.length / 3, `${out.length} vs ${output.length}`);
    assert.ok(!/^Requirement already satisfied: /m.test(out));
    assert.match(
      out,
      /\(Current directory: \/marshmallow-code__marshmallow\)\nbash-\$$/,
      'the status footer stays last',
    );
    assert.match(out, /\d+ "Requirement already satisfied"/);
    assert.match(out, /Successfully installed/);
  });

  it('npm install: deprecation warnings collapse, vulnerabilities stay', () => {
    const out = trimOutput(fixtureText('npm-install.txt'), 'install', keep);
    assert.match(out, /12 "npm deprecation warning"/);
    assert.match(out, /3 high severity vulnerabilities/);
  });

  it('git diff loses index lines only; git status loses hints', () => {
    const diff = trimOutput(fixtureText('git-diff.txt'), 'git-diff', keep);
    assert.ok(!/^index /m.test(diff));
    assert.match(diff, /^\+ {8}return int\(round/m);
    const status = trimOutput(fixtureText('git-status.txt'), 'git-status', keep);
    assert.ok(!status.includes('(use "git add <file>..."'));
    assert.match(status, /modified: {3}src\/marshmallow\/fields.py/);
  });

  it('tsc: every error stays, even the same message at many sites', () => {
    const out = trimOutput(fixtureText('tsc-errors.txt'), 'build', keep);
    assert.equal(out.match(/TS2322/g)?.length, 9);
    assert.match(out, /TS2304: Cannot find name 'foo'/);
  });

  it('lint: a warning repeated across files is kept three times with a count', () => {
    const lint = Array.from({ length: 9 }, (_, i) => `src/r${i}.py:${i + 3}:80: W505 doc line too long (90 > 79)`).join(
      '\n',
    );
    const out = trimOutput(lint, 'build', keep);
    assert.equal(out.match(/W505/g)?.length, 3);
    assert.match(out, /6 repeats of warnings/);
  });

  it('ls -l keeps type, permissions, size and name; owner, links and dates are said once', () => {
    const ls = [
      'total 708',
      'drwxrwxrwx  1 root root   4096 Oct 24  2024 .',
      'drwxr-xr-x  1 root root   4096 Nov 18 23:37 ..',
      '-rw-r--r--  1 root root   1701 Oct 24  2024 .git-blame-ignore-revs',
      'drwxrwxrwx  8 root root   4096 Oct 24  2024 .git',
      '-rwxr-xr-x  1 root root   1647 Oct 24  2024 setup.py',
      'lrwxrwxrwx  1 root root     11 Oct 24  2024 link -> setup.py',
    ].join('\n');
    assert.equal(
      trimOutput(ls, 'list', keep),
      [
        'total 708',
        '[ls -l rows: owner root:root on every row; link counts and dates left out; sizes in bytes]',
        'drwxrwxrwx ./',
        'drwxr-xr-x ../',
        '-rw-r--r-- 1701 .git-blame-ignore-revs',
        'drwxrwxrwx .git/',
        '-rwxr-xr-x 1647 setup.py',
        'lrwxrwxrwx 11 link -> setup.py',
      ].join('\n'),
    );
  });

  it('rg output is grouped by file; find output by directory', () => {
    const rg = trimOutput(fixtureText('rg-output.txt'), 'search', keep);
    assert.match(rg, /^src\/marshmallow\/fields.py:\n {2}100: {8}precision/m);
    assert.match(rg, /^tests\/test_fields.py:12:from marshmallow import fields$/m);
    const find = trimOutput(fixtureText('find-output.txt'), 'list', keep);
    assert.match(find, /^\.\/src\/marshmallow\/validate\/rules\/\n {2}rule_0\.py$/m);
    assert.ok(find.length < fixtureText('find-output.txt').length * 0.6);
  });

  it('strips ANSI codes, carriage-return redraws and progress bars', () => {
    const out = trimOutput(fixtureText('ansi-progress.txt'), 'shell', keep);
    assert.ok(!out.includes('\x1b'));
    assert.ok(!out.includes('%|'));
    assert.match(out, /✓ compiled successfully/);
    assert.match(out, /error: something broke in src\/a.ts/);
  });

  it('curl progress meter (real output) goes, the page stays', () => {
    const out = trimOutput(observations.curl_progress.output, 'shell', keep);
    assert.ok(!out.includes('% Total'));
    assert.ok(!out.includes('--:--:--'));
    assert.match(out, /<title>Perl Examples<\/title>/);
  });

  it('python traceback (real output) survives untouched', () => {
    const { output } = observations.python_traceback;
    const out = trimOutput(output, 'shell', keep);
    for (const line of output
      .replace(/\r\n/g, '\n')
      .split('\n')
      .filter((l) => /Traceback|File "|Error/.test(l))) {
      assert.ok(out.includes(line.trimEnd()), line);
    }
  });
});

describe('line-number prefixes', () => {
  it('Claude Code `N→` prefixes go, with the range in one header', () => {
    const out = stripLineNumbers(fixtureText('claude-read.txt'));
    assert.match(
      out,
      /^\[lines 1-40; line numbers removed\]\n {4}line 1 of the module\n {4}line 2 of the module\nline 3/,
    );
    assert.equal(stripLineNumbers(out), out);
  });

  it('SWE-agent `N:` view (real output): stripped only when allowed', () => {
    const { output } = observations.file_view;
    assert.match(trimOutput(output, 'read', strip), /line numbers removed/);
    assert.match(trimOutput(output, 'read', keep), /^1:/m);
  });

  it('leaves text with a few numbered lines alone', () => {
    const text = 'Steps:\n1: build\n2: test\nthen some prose\nand more prose\nand more';
    assert.equal(stripLineNumbers(text), text);
  });
});

describe('generic cuts', () => {
  it('collapses runs of identical lines with a count', () => {
    assert.equal(
      collapseRepeats('a\nwarn x\nwarn x\nwarn x\nwarn x\nb'),
      'a\nwarn x\n[… previous line repeated 3 more times]\nb',
    );
  });

  it('keeps head, tail, every error line and its neighbours, and says how to get the rest', () => {
    const lines = Array.from({ length: 500 }, (_, i) => (i === 250 ? 'ERROR: disk full' : `row ${i}`));
    const out = cutMiddle(lines.join('\n'), { maxLines: 100, head: 10, tail: 10 });
    assert.match(out, /^row 0\n/);
    assert.match(out, /\nrow 499$/);
    assert.match(out, /\nrow 249\nERROR: disk full\nrow 251\n/);
    assert.match(out, /\[… 239 lines omitted \(lines 11-249 of 500\); to see them: \| sed -n '11,249p' …\]/);
    assert.equal(cutMiddle(out, { maxLines: 10, head: 2, tail: 2 }), out, 'a cut output is final');
  });

  it('keeps warning lines inside a cut', () => {
    const lines = Array.from({ length: 400 }, (_, i) => (i === 200 ? 'npm WARN deprecated glob@7' : `step ${i}`));
    const out = cutMiddle(lines.join('\n'), { maxLines: 100, head: 10, tail: 10 });
    assert.match(out, /\nstep 199\nnpm WARN deprecated glob@7\nstep 201\n\[…/);
    assert.ok(out.split('\n').length < 100);
  });
});

describe('what the agent asked for is never cut', () => {
  // A long file whose code mentions errors: the old read cut kept those lines and left gaps.
  const file = Array.from({ length: 900 }, (_, i) =>
    i % 40 === 0 ? `    raise ValueError("error ${i}")` : `    value_${i} = compute(${i})`,
  );
  const numbered = file.map((line, i) => `${String(i + 1).padStart(6)}→${line}`).join('\n');

  it('a Read of 900 lines keeps every line (only the line numbers go, their range in a header)', () => {
    const out = trimOutput(numbered, 'read', strip);
    assert.equal(out, `[lines 1-900; line numbers removed]\n${file.join('\n')}`);
    assert.equal(trimOutput(numbered, 'read', keep), numbered);
  });

  it('a subagent report, an edit result or another tool of 900 lines is left whole', () => {
    const report = file.join('\n');
    assert.equal(trimOutput(report, 'other', keep), report);
  });

  it('a shell read (sed -n, nl -ba, cat) of 900 lines is left whole', () => {
    for (const command of ["sed -n '1,900p' src/app.py", 'nl -ba src/app.py', 'cat src/app.py']) {
      assert.equal(classifyCommand(command), 'read');
      assert.equal(trimOutput(file.join('\n'), classifyCommand(command), keep), file.join('\n'));
    }
  });

  it('the same text printed by a command is cut', () => {
    assert.match(trimOutput(file.join('\n'), 'shell', keep), /lines omitted/);
  });
});

describe('CI log rows (gh run view --log)', () => {
  const rows = [
    'Test\tRun tests\t2025-11-30T17:15:09.8037664Z       duration_ms: 7.455942',
    "Test\tRun tests\t2025-11-30T17:15:09.8038051Z       type: 'suite'",
    'Test\tRun tests\t2025-11-30T17:15:09.8038719Z     # Subtest: Error handling',
    'Test\tRun tests\t2025-11-30T17:15:09.8039261Z         ok 1 - should handle write errors gracefully',
    'Test\tPost Checkout\t\uFEFF2025-11-30T17:15:10.0538643Z Post job cleanup.',
    'Lint\tRun ESLint\t2025-11-30T17:15:04.6678645Z ✖ 11 problems (0 errors, 11 warnings)',
    'Lint\tRun ESLint\t2025-11-30T17:15:04.6679000Z done',
    'Lint\tRun ESLint\t2025-11-30T17:15:04.6679500Z exit',
  ];

  it('says job, step and date once per run of rows, and keeps every row whole otherwise', () => {
    const out = factorLogColumns(rows.join('\n'));
    assert.equal(
      out,
      [
        '[… 4 rows of: Test\tRun tests\t2025-11-30T …]',
        '17:15:09.8037664Z       duration_ms: 7.455942',
        "17:15:09.8038051Z       type: 'suite'",
        '17:15:09.8038719Z     # Subtest: Error handling',
        '17:15:09.8039261Z         ok 1 - should handle write errors gracefully',
        rows[4],
        '[… 3 rows of: Lint\tRun ESLint\t2025-11-30T …]',
        '17:15:04.6678645Z ✖ 11 problems (0 errors, 11 warnings)',
        '17:15:04.6679000Z done',
        '17:15:04.6679500Z exit',
      ].join('\n'),
    );
    assert.equal(factorLogColumns(out), out, 'a factored log is final');
  });

  it('keeps the line prefixes of a grep over the log on their rows', () => {
    const grepped = rows.slice(0, 4).map((r, i) => `${1141 + i}${i === 2 ? ':' : '-'}${r}`);
    const out = factorLogColumns([...grepped, '--', ...grepped].join('\n'));
    assert.match(out, /^\[… 4 rows of: Test\tRun tests\t2025-11-30T …\]\n1141-17:15:09\.8037664Z {7}duration_ms/);
    assert.match(out, /\n1143:17:15:09\.8038719Z {5}# Subtest: Error handling\n/);
  });

  it('leaves other tab-separated output alone', () => {
    const table = Array.from({ length: 10 }, (_, i) => `name${i}\tpass\t${i}s\thttps://example.com/${i}`).join('\n');
    assert.equal(factorLogColumns(table), table);
  });

  it('applies to a log the agent reads too (it is reversible)', () => {
    assert.match(trimOutput(rows.join('\n'), 'read', keep), /^\[… 4 rows of: /);
  });
});

describe('JSON records (gh … --json)', () => {
  const runs = [
    { conclusion: 'failure', databaseId: 19376371715, headSha: 'c43e23f', status: 'completed' },
    { conclusion: '', databaseId: 19376283331, headSha: 'a54532f', status: 'in_progress' },
    { conclusion: 'success', databaseId: 19376127198, headSha: '0310efc', status: 'completed' },
  ];

  it('says the keys once and gives one line of values per record, which zip back to the records', () => {
    const out = jsonRecordsAsRows(JSON.stringify(runs))!;
    const [header, ...rows] = out.split('\n');
    assert.equal(
      header,
      '[… JSON array of 3 objects, one per line below as its values for the keys ["conclusion","databaseId","headSha","status"] …]',
    );
    const keys = JSON.parse(/keys (\[.*\]) …\]$/.exec(header!)![1]!) as string[];
    assert.deepEqual(
      rows.map((r) => Object.fromEntries(keys.map((k, i) => [k, (JSON.parse(r) as unknown[])[i]]))),
      runs,
    );
    assert.ok(out.length < JSON.stringify(runs).length);
  });

  it('leaves records with other keys, short arrays and non-arrays alone', () => {
    assert.equal(jsonRecordsAsRows(JSON.stringify([...runs, { conclusion: 'x', status: 'y' }])), undefined);
    assert.equal(jsonRecordsAsRows(JSON.stringify(runs.slice(0, 2))), undefined);
    assert.equal(jsonRecordsAsRows(JSON.stringify({ runs })), undefined);
    assert.equal(jsonRecordsAsRows('[1, 2, 3]'), undefined);
  });
});

describe('search output grouping', () => {
  it('groups the files a search lists (grep -l, Claude Code Grep) by directory', () => {
    const files = ['Found 4 files', ...['a', 'b', 'c', 'd'].map((f) => `/tmp/repo/src/lib/${f}.mjs`)].join('\n');
    assert.equal(
      trimOutput(files, 'search', keep),
      'Found 4 files\n/tmp/repo/src/lib/\n  a.mjs\n  b.mjs\n  c.mjs\n  d.mjs',
    );
  });

  it('groups matching lines by file, as before', () => {
    const rows = ['src/a.ts:1:x', 'src/a.ts:2:y', 'src/a.ts:9:z', 'src/b.ts:4:w'].join('\n');
    assert.equal(trimOutput(rows, 'search', keep), 'src/a.ts:\n  1:x\n  2:y\n  9:z\nsrc/b.ts:4:w');
  });
});
