import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { compressPayload } from '../../src/compress/index.js';
import { minifyJson } from '../../src/compress/filters/json.js';
import { build, outputs, type Call, type Dialogue, type Turn } from './helpers/build.js';
import { fixtureText, observations } from './helpers/fixtures.js';

const bigOutput = (i: number) => Array.from({ length: 40 }, (_, k) => `result ${i}.${k}: some value here`).join('\n');
const turn = (i: number, call?: Partial<Call>): Turn => ({
  assistant: `step ${i}`,
  calls: [{ id: `c${i}`, name: 'bash', args: { command: `python step${i}.py` }, output: bigOutput(i), ...call }],
});
const dialogue = (turns: Turn[], extra: Partial<Dialogue> = {}): Dialogue => ({
  system: 'sys',
  task: 'task',
  turns,
  ...extra,
});

describe('observation_masking (history rewrite at the boundary the rewrite policy chose)', () => {
  it('masks results of turns before the boundary with a placeholder that states their size', () => {
    const turns = Array.from({ length: 12 }, (_, i) => turn(i));
    const out = outputs(compressPayload(build(dialogue(turns), 'chat'), { maskBefore: 8 }).body);
    assert.match(out.get('c0')!, /^\[Earlier tool output removed to save context \(40 lines, [\d,]+ chars\)/);
    assert.match(out.get('c7')!, /^\[Earlier tool output removed/);
    assert.equal(out.get('c8'), bigOutput(8));
    assert.equal(out.get('c11'), bigOutput(11));
  });

  it('never masks the latest 4 turns, whatever the boundary', () => {
    const turns = Array.from({ length: 12 }, (_, i) => turn(i));
    const out = outputs(compressPayload(build(dialogue(turns), 'chat'), { maskBefore: 50 }).body);
    assert.match(out.get('c7')!, /^\[Earlier tool output removed/);
    assert.equal(out.get('c8'), bigOutput(8));
  });

  it('without a boundary nothing is masked', () => {
    const turns = Array.from({ length: 12 }, (_, i) => turn(i));
    const out = outputs(compressPayload(build(dialogue(turns), 'chat')).body);
    assert.equal(out.get('c0'), bigOutput(0));
  });

  it('keeps short old results: the placeholder would not be cheaper', () => {
    const turns = Array.from({ length: 12 }, (_, i) => turn(i, { output: 'File updated.' }));
    const out = outputs(compressPayload(build(dialogue(turns), 'chat'), { maskBefore: 8 }).body);
    assert.equal(out.get('c0'), 'File updated.');
  });

  it('a masked output keeps its status footer; a visible pointer to it is written out in full again', () => {
    const footer = '\n(Open file: /r/a.py)\n(Current directory: /r)\nbash-$';
    const turns = [
      turn(0, { output: `${bigOutput(0)}${footer}` }),
      turn(1),
      ...Array.from({ length: 8 }, (_, i) => turn(i + 2)),
      turn(10, { output: bigOutput(1) }),
    ];
    const body = build(dialogue(turns), 'chat');
    assert.equal(outputs(compressPayload(body).body).get('c10'), '[Identical to the output of tool call c1 above.]');
    const out = outputs(compressPayload(body, { maskBefore: 6 }).body);
    assert.match(
      out.get('c0')!,
      /^\[Earlier tool output removed[^\n]*\n\(Open file: \/r\/a\.py\)\n\(Current directory: \/r\)\nbash-\$$/,
    );
    assert.match(out.get('c1')!, /^\[Earlier tool output removed/);
    assert.equal(out.get('c10'), bigOutput(1));
  });
});

describe('duplicate_read_elision (exact repeats, at first sight)', () => {
  it('a later identical output points back to the first one, which stays', () => {
    const same = { name: 'read_file', args: { path: 'a.py' }, output: bigOutput(99) };
    const out = outputs(compressPayload(build(dialogue([turn(0, same), turn(1), turn(2, same)]), 'chat')).body);
    assert.equal(out.get('c0'), bigOutput(99));
    assert.equal(out.get('c2'), '[Identical to the output of tool call c0 above.]');
  });

  it('however old the first copy is', () => {
    const same = { output: bigOutput(99) };
    const turns = [turn(0, same), ...Array.from({ length: 20 }, (_, i) => turn(i + 1)), turn(21, same)];
    const out = outputs(compressPayload(build(dialogue(turns), 'chat')).body);
    assert.equal(out.get('c21'), '[Identical to the output of tool call c0 above.]');
  });
});

describe('near_duplicate_reference (runs of lines seen before, at first sight)', () => {
  const file = (lines: string[], first = 1) => lines.map((l, i) => `${String(first + i).padStart(6)}\t${l}`).join('\n');
  const code = Array.from({ length: 30 }, (_, i) => `    value_${i} = compute_something(${i}, option=True)`);

  it('numbered views keep their numbers: a shifted run names the old and the new numbers', () => {
    const edited = [...code.slice(0, 10), '    inserted_line = 1', ...code.slice(10)];
    const turns = [
      { assistant: 'a', calls: [{ id: 'v1', name: 'bash', args: { command: 'python show.py' }, output: file(code) }] },
      {
        assistant: 'b',
        calls: [{ id: 'v2', name: 'bash', args: { command: 'python show.py' }, output: file(edited) }],
      },
    ];
    const out = outputs(compressPayload(build(dialogue(turns), 'chat')).body).get('v2')!;
    assert.equal(
      out,
      [
        '[… lines numbered 1-10 as in the output of tool call v1 …]',
        `${'11'.padStart(6)}\t    inserted_line = 1`,
        '[… lines numbered 12-31 as numbered 11-30 in the output of tool call v1 …]',
      ].join('\n'),
    );
  });

  it('an overlapping range of the same file refers to the lines already shown', () => {
    const turns = [
      {
        assistant: 'a',
        calls: [{ id: 'v1', name: 'bash', args: { command: 'python show.py' }, output: file(code.slice(0, 20)) }],
      },
      {
        assistant: 'b',
        calls: [{ id: 'v2', name: 'bash', args: { command: 'python show.py' }, output: file(code.slice(10), 11) }],
      },
    ];
    const out = outputs(compressPayload(build(dialogue(turns), 'chat')).body).get('v2')!;
    assert.equal(out.split('\n')[0], '[… lines numbered 11-20 as in the output of tool call v1 …]');
    assert.equal(out.split('\n')[1], `${'21'.padStart(6)}\t${code[20]}`);
  });

  it('error and failure lines stay in the new output even when seen before', () => {
    const log = [...code.slice(0, 8), 'AssertionError: value_3 is wrong', ...code.slice(8, 16)].join('\n');
    const turns = [
      { assistant: 'a', calls: [{ id: 't1', name: 'bash', args: { command: 'python run.py' }, output: log }] },
      {
        assistant: 'b',
        calls: [{ id: 't2', name: 'bash', args: { command: 'python run.py' }, output: `${log}\nmore` }],
      },
    ];
    const out = outputs(compressPayload(build(dialogue(turns), 'chat')).body).get('t2')!;
    assert.ok(out.includes('AssertionError: value_3 is wrong'));
    assert.match(out, /^\[… 8 lines as in the output of tool call t1 \(its lines 1-8\) …\]$/m);
  });
});

describe('status_line_dedup', () => {
  it('drops a footer line that repeats the previous observation, keeps the changed one', () => {
    const footer = (file: string) => `\n(Open file: ${file})\n(Current directory: /testbed)\nbash-$`;
    const turns = [turn(0, { output: `ok${footer('a.py')}` }), turn(1, { output: `done${footer('b.py')}` })];
    const out = outputs(compressPayload(build(dialogue(turns), 'chat')).body);
    assert.equal(out.get('c0'), `ok${footer('a.py')}`);
    assert.equal(out.get('c1'), 'done\n(Open file: b.py)');
  });

  it("drops SWE-agent's edit reminder when the previous observation ended with it too", () => {
    const reminder =
      'File updated. Please review the changes and make sure they are correct (correct indentation, no duplicate lines, etc). Edit the file again if necessary.';
    const edited = (line: string) =>
      `[File: /r/a.py (3 lines total)]\n1:${line}\n${reminder}\n(Open file: /r/a.py)\nbash-$`;
    const turns = [turn(0, { output: edited('x = 1') }), turn(1, { output: edited('x = 2') })];
    const out = outputs(compressPayload(build(dialogue(turns), 'chat')).body);
    assert.equal(out.get('c0'), edited('x = 1'));
    assert.equal(out.get('c1'), '[File: /r/a.py (3 lines total)]\n1:x = 2');
  });
});

describe('bundles', () => {
  it('claude: Read output loses `N→` prefixes, Bash pytest output is filtered', () => {
    const turns = [
      turn(0, { name: 'Read', args: { file_path: '/r/a.py' }, output: fixtureText('claude-read.txt') }),
      turn(1, { name: 'Bash', args: { command: 'pytest -v' }, output: fixtureText('pytest-verbose-failure.txt') }),
    ];
    const out = outputs(compressPayload(build(dialogue(turns), 'messages'), { bundle: 'claude' }).body);
    assert.match(out.get('c0')!, /^\[lines 1-40; line numbers removed\]/);
    assert.ok(!out.get('c1')!.includes('PASSED'));
  });

  it('codex: the argv `shell` command picks the filter', () => {
    const turns = [
      turn(0, {
        name: 'shell',
        args: { command: ['bash', '-lc', 'pip install -e .'] },
        output: observations.pip_install.output,
      }),
    ];
    const { body, compression } = compressPayload(build(dialogue(turns), 'responses'), { bundle: 'codex' });
    assert.match(outputs(body).get('c0')!, /routine install lines/);
    assert.ok(compression.applied_strategies.includes('tool_result_trimming'));
  });

  it('generic: SWE-agent views keep line numbers when the system prompt edits by line', () => {
    const view = turn(0, { name: 'open', args: { path: 'server.py' }, output: observations.file_view.output });
    const editsByLine = compressPayload(
      build(dialogue([view], { system: 'edit <start_line>:<end_line> replaces lines' }), 'chat'),
    );
    assert.match(outputs(editsByLine.body).get('c0')!, /^1:/m);
    const plain = compressPayload(build(dialogue([view]), 'chat'));
    assert.match(outputs(plain.body).get('c0')!, /line numbers removed/);
  });

  it('generic: a system prompt that only cites code as `file_path:line_number` does not keep line numbers', () => {
    const read = turn(0, { name: 'Read', args: { file_path: '/r/a.py' }, output: fixtureText('claude-read.txt') });
    const cites = 'When referencing code include the pattern `file_path:line_number` so the user can navigate.';
    const citing = compressPayload(build(dialogue([read], { system: cites }), 'messages'));
    assert.match(outputs(citing.body).get('c0')!, /^\[lines 1-40; line numbers removed\]/);
    const editsByLine = compressPayload(
      build(
        dialogue([read], { system: `${cites} The edit tool takes line_number and replaces that line.` }),
        'messages',
      ),
    );
    assert.match(outputs(editsByLine.body).get('c0')!, /^ *1→/m);
  });

  it('opencode and cursor name their own tools', () => {
    const pytest = fixtureText('pytest-verbose-failure.txt');
    for (const [bundle, name] of [
      ['opencode', 'bash'],
      ['cursor', 'run_terminal_cmd'],
    ] as const) {
      const turns = [turn(0, { name, args: { command: 'pytest -v' }, output: pytest })];
      assert.ok(
        !outputs(compressPayload(build(dialogue(turns), 'chat'), { bundle }).body)
          .get('c0')!
          .includes('PASSED'),
        bundle,
      );
    }
  });
});

describe('tool_surface_reduction', () => {
  it('drops annotations and whitespace, keeps every name, type, enum and required field', () => {
    const tools = [
      {
        name: 'Bash',
        description: 'Runs a command.   \n\n\n\nUse it wisely.  ',
        parameters: {
          $schema: 'http://json-schema.org/draft-07/schema#',
          title: 'BashInput',
          type: 'object',
          additionalProperties: true,
          properties: {
            title: { type: 'string', title: 'Title', description: ' the title ' },
            mode: { type: 'string', enum: ['a', 'b'] },
          },
          required: ['title'],
        },
      },
    ];
    for (const shape of ['chat', 'messages', 'responses'] as const) {
      const { body, compression } = compressPayload(build(dialogue([turn(0)], { tools }), shape));
      assert.ok(compression.applied_strategies.includes('tool_surface_reduction'), shape);
      const json = JSON.stringify(body.tools);
      assert.ok(!json.includes('$schema') && !json.includes('BashInput') && !json.includes('"Title"'));
      assert.ok(json.includes('"title":{"type":"string","description":"the title"}'));
      assert.ok(json.includes('"enum":["a","b"]') && json.includes('"required":["title"]'));
      assert.ok(json.includes('Runs a command.\\n\\nUse it wisely.'));
    }
  });
});

describe('structured_output_minification', () => {
  it('removes whitespace outside strings only; numbers keep their spelling', () => {
    assert.equal(minifyJson('{\n  "a": 1.50,\n  "b": "x  y",\n  "c": [1, 2]\n}'), '{"a":1.50,"b":"x  y","c":[1,2]}');
    assert.equal(minifyJson('{"a": 1}'), undefined, 'one-line JSON is left alone');
    assert.equal(minifyJson('{ not json\n}'), undefined);
  });
});
