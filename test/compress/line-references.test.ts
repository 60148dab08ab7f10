// References to what the model itself wrote (heredocs, edit blocks, Write/Edit/str_replace_editor
// arguments, Codex argv) and to earlier unnumbered text shown again numbered, in the shapes
// several agents send; and tracebacks repeated from an earlier run. Every reference is written
// out again with the engine's own expander and must give back the output exactly.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { compressPayload, type BundleName } from '../../src/compress/index.js';
import { expandReferences } from '../../src/compress/first-sight/line-references.js';
import { build, outputs, type Call, type Dialogue, type Shape } from './helpers/build.js';
import { argumentsOf, expandReferences as expandIndependently } from './helpers/expand.js';

const CODE = Array.from({ length: 24 }, (_, i) => `    total_${i} = accumulate(values[${i}], weight=${i % 5})`);
const nl = (lines: string[], first = 1) => lines.map((l, i) => `${String(first + i).padStart(6)}\t${l}`).join('\n');

// A system prompt that edits by line number: numbered views keep their numbers.
const BY_LINE = 'edit <start_line>:<end_line> replaces lines';
const dialogue = (calls: Call[][], system = 'sys'): Dialogue => ({
  system,
  task: 'task',
  turns: calls.map((c, i) => ({ assistant: `step ${i}`, calls: c })),
});

/** Compressed outputs, each checked to expand back to its original (engine and test expander). */
function compress(d: Dialogue, shape: Shape, bundle?: BundleName): Map<string, string> {
  const out = outputs(compressPayload(build(d, shape), bundle ? { bundle } : {}).body);
  const args = argumentsOf(d);
  const argument = (id: string, path: string) =>
    path.split(/\.|(?=\[)/).reduce<unknown>((v, p) => {
      const index = /^\[(\d+)\]$/.exec(p);
      return (v as Record<string, unknown>)[index ? Number(index[1]) : p];
    }, args.get(id)) as string;
  for (const turn of d.turns) {
    for (const c of turn.calls) {
      const text = out.get(c.id)!;
      const engine = expandReferences(text, (id, arg) => (arg === undefined ? out.get(id) : argument(id, arg)));
      assert.equal(engine, expandIndependently(text, out, args));
      if (!/^\[(Identical|lines )/.test(text) && text.includes('[… ')) assert.equal(engine, c.output, c.id);
    }
  }
  return out;
}

describe('references to what the model wrote (call arguments)', () => {
  it('mini-swe-agent: a heredoc printed back by cat, then shown numbered by nl -ba', () => {
    const heredoc = `cat <<'EOF' > calc.py\n${CODE.slice(0, 12).join('\n')}\nEOF`;
    const calls = [
      [{ id: 'w', name: 'bash', args: { command: heredoc }, output: '' }],
      [{ id: 'c', name: 'bash', args: { command: 'cat calc.py' }, output: CODE.slice(0, 12).join('\n') }],
      [
        {
          id: 'n',
          name: 'bash',
          args: { command: "nl -ba calc.py | sed -n '3,10p'" },
          output: nl(CODE.slice(2, 10), 3),
        },
      ],
    ];
    const out = compress(dialogue(calls, BY_LINE), 'chat');
    // `cat calc.py` is an exact copy of lines 2-13 of the command.
    assert.equal(out.get('c'), '[… 12 lines as in the command argument of tool call w, lines 2-13 …]');
    assert.equal(
      out.get('n'),
      '[… lines numbered 3-10 ("     3\\t") as in the command argument of tool call w, lines 4-11 …]',
    );
    // Where line numbers are not needed the view loses them first; the lines are then plain.
    assert.equal(
      compress(dialogue(calls), 'chat').get('n'),
      '[lines 3-10; line numbers removed]\n[… 8 lines as in the command argument of tool call w, lines 4-11 …]',
    );
  });

  it('SWE-agent: an `edit` block shown numbered in the file window after the edit', () => {
    const block = `edit 5:10\n${CODE.slice(4, 10).join('\n')}\nend_of_edit`;
    const window = [
      '[File: /repo/calc.py (24 lines total)]',
      '(2 more lines above)',
      ...CODE.slice(2, 12).map((l, i) => `${i + 3}:${l}`),
      '(12 more lines below)',
    ].join('\n');
    const d = dialogue([[{ id: 'e', name: 'bash', args: { command: block }, output: window }]]);
    const out = compress(d, 'chat');
    assert.match(
      out.get('e')!,
      /^\[… lines numbered 5-10 \("5:"\) as in the command argument of tool call e, lines 2-7 …\]$/m,
    );
    assert.match(out.get('e')!, /^3: {4}total_2 = /m);
  });

  it('Claude Code: the snippet an Edit returns shows its new_string', () => {
    const snippet = [
      "The file /r/calc.py has been updated. Here's the result of running `cat -n` on a snippet of the edited file:",
      ...CODE.slice(6, 14).map((l, i) => `${String(i + 7).padStart(6)}→${l}`),
    ].join('\n');
    const d = dialogue([
      [
        {
          id: 'toolu_1',
          name: 'Edit',
          args: { file_path: '/r/calc.py', old_string: 'x', new_string: CODE.slice(7, 12).join('\n') },
          output: snippet,
        },
      ],
    ]);
    const out = compress(d, 'messages', 'claude');
    assert.match(
      out.get('toolu_1')!,
      /^\[… lines numbered 8-12 \(" {5}8→"\) as in the new_string argument of tool call toolu_1, lines 1-5 …\]$/m,
    );
  });

  it("Codex: the lines an apply_patch added, read back with cat and nl -ba, refer to the patch's + lines", () => {
    const patch = `*** Begin Patch\n*** Add File: calc.py\n${CODE.slice(0, 12)
      .map((l) => `+${l}`)
      .join('\n')}\n*** End Patch`;
    const d = dialogue([
      [
        {
          id: 'p',
          name: 'apply_patch',
          args: { input: patch },
          output: 'Success. Updated the following files:\nA calc.py',
        },
      ],
      [{ id: 'c', name: 'exec_command', args: { cmd: 'cat calc.py' }, output: CODE.slice(0, 12).join('\n') }],
      [
        {
          id: 'n',
          name: 'exec_command',
          args: { cmd: "nl -ba calc.py | sed -n '3,10p'" },
          output: nl(CODE.slice(2, 10), 3),
        },
      ],
    ]);
    const out = compress(d, 'responses', 'codex');
    assert.equal(
      out.get('c'),
      '[… 12 lines as in the input argument of tool call p, lines 3-14, each without its first character …]',
    );
    // Numbers kept (an agent that edits by line number): numbered from the patch's lines.
    const kept = compress({ ...d, system: BY_LINE }, 'responses');
    assert.match(
      kept.get('n')!,
      /^\[… lines numbered 3-10 \(" {5}3\\t"\) as in the input argument of tool call p, lines 5-12, each without its first character …\]$/m,
    );
    // The codex bundle strips the numbers of a read (a header says which lines): a plain run then.
    assert.equal(
      out.get('n'),
      '[lines 3-10; line numbers removed]\n[… 8 lines as in the input argument of tool call p, lines 5-12, each without its first character …]',
    );
  });

  it('str_replace_editor: a created file viewed with cat -n numbering', () => {
    const view = `Here's the result of running \`cat -n\` on /r/calc.py:\n${nl(CODE.slice(0, 10))}`;
    const d = dialogue([
      [
        {
          id: 'a',
          name: 'str_replace_editor',
          args: { command: 'create', path: '/r/calc.py', file_text: CODE.slice(0, 10).join('\n') },
          output: 'File created successfully at: /r/calc.py',
        },
      ],
      [{ id: 'b', name: 'str_replace_editor', args: { command: 'view', path: '/r/calc.py' }, output: view }],
    ]);
    const out = compress(d, 'chat');
    assert.match(out.get('b')!, /as in the file_text argument of tool call a, lines 1-10 …\]$/);
  });

  it('Codex: a heredoc inside the argv of shell', () => {
    const argv = ['bash', '-lc', `cat > calc.py <<'EOF'\n${CODE.slice(0, 8).join('\n')}\nEOF`];
    const d = dialogue([
      [{ id: 'x', name: 'shell', args: { command: argv }, output: '' }],
      [
        {
          id: 'y',
          name: 'shell',
          args: { command: ['bash', '-lc', 'cat calc.py'] },
          output: CODE.slice(0, 8).join('\n'),
        },
      ],
    ]);
    const out = compress(d, 'responses', 'codex');
    assert.equal(out.get('y'), '[… 8 lines as in the command[2] argument of tool call x, lines 2-9 …]');
  });

  it('a file printed plainly, then shown numbered, refers to the earlier output; masking it writes the lines out', () => {
    const filler = (i: number): Call[] => [
      { id: `f${i}`, name: 'bash', args: { command: `python step${i}.py` }, output: `step ${i} done` },
    ];
    const d = dialogue(
      [
        [{ id: 'p', name: 'bash', args: { command: 'cat calc.py' }, output: CODE.join('\n') }],
        ...Array.from({ length: 5 }, (_, i) => filler(i)),
        [{ id: 'q', name: 'bash', args: { command: 'nl -ba calc.py' }, output: nl(CODE.slice(0, 20)) }],
      ],
      BY_LINE,
    );
    const body = build(d, 'chat');
    const first = outputs(compressPayload(body).body);
    assert.equal(
      first.get('q'),
      '[… lines numbered 1-20 ("     1\\t") as in the output of tool call p (its lines 1-20) …]',
    );
    const rewritten = outputs(compressPayload(body, { maskBefore: 1 }).body);
    assert.match(rewritten.get('p')!, /^\[Earlier tool output removed/);
    assert.equal(rewritten.get('q'), nl(CODE.slice(0, 20)));
  });

  it('a numbered run stops where the written-back padding would differ', () => {
    // Right-aligned to 3 columns, then a line whose padding does not follow the first prefix.
    const view = [...CODE.slice(0, 5).map((l, i) => `${String(i + 1).padStart(3)}:${l}`), `6:${CODE[5]}`].join('\n');
    const heredoc = `cat <<'EOF' > calc.py\n${CODE.slice(0, 6).join('\n')}\nEOF`;
    const d = dialogue([[{ id: 'h', name: 'bash', args: { command: heredoc }, output: view }]]);
    const out = compress(d, 'chat');
    assert.equal(
      out.get('h'),
      `[… lines numbered 1-5 ("  1:") as in the command argument of tool call h, lines 2-6 …]\n6:${CODE[5]}`,
    );
  });
});

describe('repeated tracebacks', () => {
  const frames = Array.from({ length: 6 }, (_, i) => [
    `  File "/testbed/pkg/module_${i}.py", line ${10 * i + 3}, in handler_${i}`,
    `    return dispatch_${i}(request, context=context)`,
  ]).flat();
  const trace = (last: string) =>
    ['Running checks', 'Traceback (most recent call last):', ...frames, last, 'ValueError: bad value 3'].join('\n');

  for (const [shape, bundle] of [
    ['chat', undefined],
    ['messages', 'claude'],
    ['responses', 'codex'],
  ] as const) {
    it(`the frames seen before become a reference; header, innermost frame and exception stay (${shape})`, () => {
      const d = dialogue([
        [{ id: 't1', name: 'bash', args: { command: 'python repro.py' }, output: trace('    raise ValueError(x)') }],
        [{ id: 't2', name: 'bash', args: { command: 'python repro.py' }, output: trace('    raise ValueError(y)') }],
      ]);
      const lines = compress(d, shape, bundle).get('t2')!.split('\n');
      assert.deepEqual(lines, [
        'Running checks',
        'Traceback (most recent call last):',
        '[… 10 lines as in the output of tool call t1 (its lines 3-12) …]',
        frames[10],
        frames[11],
        '    raise ValueError(y)',
        'ValueError: bad value 3',
      ]);
    });
  }
});
