// Synthetic tool calls and outputs of every kind the engine handles differently, for the
// warm-up conversation (warmup.ts). None of it comes from the benchmark's data: the aim is that
// V8 has compiled each path (every filter, the cut of long outputs, JSON minification,
// non-ASCII text in the tokenizer's scanner, pieces of every length in the byte-pair encoder)
// before timing starts, as in a gateway that has served many agents.

export interface ToolTurn {
  tool: string;
  args: Record<string, unknown>;
  output: string;
}

export interface Gen {
  rand: () => number;
  pick: <T>(items: readonly T[]) => T;
  word: () => string;
  codeLine: () => string;
  int: (max: number) => number;
}

const lines = (count: number, line: (i: number) => string) =>
  Array.from({ length: count }, (_, i) => line(i)).join('\n');
const NON_ASCII = [
  'café',
  'naïve',
  'Größe',
  '東京',
  '数据',
  'привет',
  'ñandú',
  '→',
  '✓',
  '…',
  '😀',
  '█▌',
  '═══',
  'é\u0301',
];

/** Prose in mixed case, with contractions, digits, punctuation and some non-ASCII words. */
function prose(g: Gen, words: number): string {
  return Array.from({ length: words }, (_, i) => {
    const w = g.rand() < 0.08 ? g.pick(NON_ASCII) : g.word();
    const cased = g.rand() < 0.15 ? w[0]!.toUpperCase() + w.slice(1) : g.rand() < 0.03 ? w.toUpperCase() : w;
    return `${cased}${g.rand() < 0.05 ? "'s" : ''}${i % 11 === 10 ? '.' : g.rand() < 0.1 ? ',' : ''}${g.rand() < 0.03 ? ` ${g.int(10_000)}` : ''}`;
  }).join(' ');
}

const hex = (g: Gen, n: number) => Array.from({ length: n }, () => '0123456789abcdef'[g.int(16)]).join('');

export const TURNS: ((g: Gen) => ToolTurn)[] = [
  (g) => ({
    tool: 'bash',
    args: { command: `cd /src && python -m pytest -q tests/test_${g.word()}.py` },
    output: [
      '============================= test session starts ==============================',
      'plugins: cov-4.1.0',
      lines(25, () => `tests/test_${g.word()}.py::test_${g.word()} PASSED`),
      `tests/test_${g.word()}.py::test_${g.word()} FAILED`,
      'Traceback (most recent call last):',
      `  File "/src/${g.word()}.py", line ${g.int(900)}, in ${g.word()}`,
      `    ${g.codeLine()}`,
      `AssertionError: expected ${g.int(99)} got ${g.int(99)}`,
      `========== 1 failed, 25 passed in ${g.int(9)}.${g.int(99)}s ==========`,
    ].join('\n'),
  }),
  (g) => ({
    tool: 'bash',
    args: { command: `pip install ${g.word()}==${g.int(9)}.${g.int(9)}` },
    output: [
      lines(
        12,
        () => `Requirement already satisfied: ${g.word()} in /usr/lib/python3/site-packages (${g.int(9)}.${g.int(20)})`,
      ),
      `Collecting ${g.word()}`,
      `  Downloading ${g.word()}-${g.int(9)}.${g.int(9)}-py3-none-any.whl (${g.int(900)} kB)`,
      `     ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━ ${g.int(900)}.0/900.0 kB ${g.int(9)}.${g.int(9)} MB/s eta 0:00:00`,
      `Successfully installed ${g.word()}-${g.int(9)}.${g.int(9)}`,
    ].join('\n'),
  }),
  (g) => ({
    tool: 'bash',
    args: { command: 'npx tsc --noEmit -p .' },
    output: lines(
      14,
      (i) =>
        `src/${g.word()}.ts(${g.int(300)},${g.int(40)}): error TS2322: Type 'string' is not assignable to type '${i % 3 ? 'number' : g.word()}'.`,
    ),
  }),
  (g) => ({
    tool: 'bash',
    args: { command: 'git diff' },
    output: [
      `diff --git a/src/${g.word()}.py b/src/${g.word()}.py`,
      `index ${hex(g, 7)}..${hex(g, 7)} 100644`,
      `--- a/src/${g.word()}.py`,
      `+++ b/src/${g.word()}.py`,
      `@@ -${g.int(90)},7 +${g.int(90)},8 @@ def ${g.word()}(self):`,
      lines(10, (i) => `${i % 4 === 0 ? '-' : i % 4 === 1 ? '+' : ' '}${g.codeLine()}`),
    ].join('\n'),
  }),
  (g) => ({
    tool: 'bash',
    args: { command: 'git status' },
    output: `On branch main\nChanges not staged for commit:\n  (use "git add <file>..." to update what will be committed)\n  (use "git restore <file>..." to discard changes in working directory)\n\tmodified:   src/${g.word()}.py\n\nno changes added to commit`,
  }),
  (g) => ({
    tool: 'bash',
    args: { command: 'git log -3' },
    output: lines(
      3,
      () =>
        `commit ${hex(g, 40)}\nMerge: ${hex(g, 7)} ${hex(g, 7)}\nAuthor: ${g.word()} <${g.word()}@example.org>\nDate:   Mon Jan ${1 + g.int(27)} 10:00:00 2024 +0000\n\n    ${prose(g, 8)}\n`,
    ),
  }),
  (g) => ({
    tool: 'grep',
    args: { pattern: g.word(), path: 'src' },
    output: lines(
      20,
      (i) => `src/${i < 12 ? 'core' : g.word()}/${i < 12 ? 'module' : g.word()}.py:${g.int(900)}:    ${g.codeLine()}`,
    ),
  }),
  (g) => ({
    tool: 'bash',
    args: { command: `find . -name "*.${g.pick(['py', 'ts', 'md'])}"` },
    output: lines(30, (i) => `./src/${i < 20 ? 'pkg/sub' : g.word()}/${g.word()}.py`),
  }),
  (g) => ({
    tool: 'read_file',
    args: { path: `src/${g.pick(['alpha', 'beta', 'gamma'])}.py` },
    output: lines(120, (i) => `${String(i + 1).padStart(6)}\t${g.codeLine()}`),
  }),
  (g) => ({
    tool: 'bash',
    args: { command: `./run_job.sh --${g.word()}` },
    // Long enough to be cut in the middle; errors, repeats, escapes, redraws and tabs inside.
    output: [
      '\x1b[32mstarting\x1b[0m job',
      lines(90, (i) =>
        i % 17 === 5
          ? `ERROR: ${prose(g, 6)}`
          : i % 23 === 0
            ? `\t${g.codeLine()}`
            : `[${g.int(99)}:${g.int(59)}] ${prose(g, 5)}`,
      ),
      lines(6, () => 'waiting for workers...'),
      `progress 10%\rprogress 50%\rprogress 100%`,
      lines(80, () => `INFO ${g.word()}=${hex(g, 12)} ${prose(g, 4)}`),
      'done\r\n',
    ].join('\n'),
  }),
  (g) => ({
    tool: 'bash',
    args: { command: `curl -s https://api.example.org/${g.word()}` },
    output: JSON.stringify(
      {
        id: hex(g, 24),
        items: Array.from({ length: 6 }, () => ({
          name: g.word(),
          size: g.int(10_000),
          tags: [g.word(), g.pick(NON_ASCII)],
        })),
      },
      null,
      2,
    ),
  }),
  (g) => ({
    tool: 'bash',
    args: { command: `cat notes_${g.word()}.txt` },
    output: `${prose(g, 120)}\n\n${hex(g, 300)}\n${Buffer.from(prose(g, 40)).toString('base64')}`,
  }),
  (g) => ({
    tool: 'str_replace_editor',
    args: { command: 'str_replace', path: `src/${g.word()}.py`, old_str: g.codeLine(), new_str: g.codeLine() },
    output: `The file src/${g.word()}.py has been edited. ${prose(g, 20)}`,
  }),
];
