// Safety invariants of the engine, each checked on random conversations in all three shapes.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  BUNDLES,
  COMPRESSION_MODELS,
  compressPayload,
  detectFormat,
  type BundleName,
} from '../../src/compress/index.js';
import { GENERIC_BUNDLE } from '../../src/compress/bundles.js';
import { MASKED_RE } from '../../src/compress/filters/markers.js';
import { isErrorLine } from '../../src/compress/filters/error-lines.js';
import { normalize } from '../../src/compress/filters/normalize.js';
import { countBodyTokens, tokenizerFor } from '../../src/compress/token-count.js';
import { build, callIds, items, outputs, SHAPES, type Dialogue, type Shape } from './helpers/build.js';
import { argumentsOf, expandReferences } from './helpers/expand.js';
import { fixtureText, observations } from './helpers/fixtures.js';

const RUNS = Number(process.env.FC_RUNS ?? 120);

const realOutputs = [
  ...Object.values(observations).map((o) => o.output),
  ...[
    'pytest-verbose-failure.txt',
    'git-diff.txt',
    'git-status.txt',
    'npm-install.txt',
    'tsc-errors.txt',
    'rg-output.txt',
    'find-output.txt',
    'claude-read.txt',
    'ansi-progress.txt',
  ].map(fixtureText),
  '{\n  "ok": true,\n  "items": [1, 2, 3]\n}',
  'File updated.',
  '',
];
// Numbered views of one file (nl -ba, cat -n, SWE-agent, grep -n): overlapping ranges, edits that
// shift later numbers, a range shown twice (an edit preview), non-consecutive numbers.
const CODE = Array.from({ length: 60 }, (_, i) => `    statement_${i % 23} = compute(${i % 7}, option=${i % 3 === 0})`);
const numberedView = fc
  .record({
    from: fc.integer({ min: 0, max: 50 }),
    length: fc.integer({ min: 3, max: 30 }),
    insertAt: fc.option(fc.integer({ min: 0, max: 59 }), { nil: undefined }),
    style: fc.constantFrom(
      (n: number) => `${String(n).padStart(6)}\t`,
      (n: number) => `${n}:`,
      (n: number) => `${String(n).padStart(5, '0')}| `,
    ),
    twice: fc.boolean(),
    sparse: fc.boolean(),
  })
  .map(({ from, length, insertAt, style, twice, sparse }) => {
    const code =
      insertAt === undefined ? CODE : [...CODE.slice(0, insertAt), '    inserted = True', ...CODE.slice(insertAt)];
    const rows = code
      .map((line, i) => `${style(i + 1)}${line}`)
      .slice(from, from + length)
      .filter((_, i) => !sparse || i % 3 !== 1);
    const view = rows.join('\n');
    return twice
      ? `Edit preview:\n${view}\nOriginal:\n${rows.map((r) => r.replace('option', 'opt')).join('\n')}`
      : view;
  });
const output = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...realOutputs) },
  { weight: 1, arbitrary: fc.constantFrom(CODE.slice(0, 14).join('\n'), `ok\n${CODE.slice(2, 9).join('\n')}`) },
  { weight: 2, arbitrary: numberedView },
  {
    weight: 1,
    arbitrary: fc
      .array(fc.constantFrom('ok', 'ERROR x', 'row', 'row', '\x1b[31mred\x1b[0m', '  12→code', ''), { maxLength: 300 })
      .map((l) => l.join('\n')),
  },
  { weight: 1, arbitrary: fc.string({ maxLength: 400 }) },
);
const toolName = fc.constantFrom(
  'bash',
  'Bash',
  'shell',
  'read_file',
  'Read',
  'grep',
  'run_terminal_cmd',
  'open',
  'custom_tool',
);
// Commands that hold what later outputs show: a heredoc writing lines of CODE (printed back by
// `cat` or a numbered view), SWE-agent's `edit` block.
const HEREDOC = `cat <<'EOF' > a.py\n${CODE.slice(0, 14).join('\n')}\nEOF`;
const EDIT_BLOCK = `edit 5:9\n${CODE.slice(4, 12).join('\n')}\nend_of_edit`;
const command = fc.constantFrom(
  HEREDOC,
  EDIT_BLOCK,
  'pytest -v',
  'pip install -e .',
  'git diff',
  'rg -n x',
  'find .',
  'ls',
  'python x.py',
  'npx tsc',
);

const dialogueArb: fc.Arbitrary<Dialogue> = fc
  .record({
    system: fc.string({ maxLength: 60 }),
    task: fc.string({ minLength: 1, maxLength: 60 }),
    turns: fc.array(
      fc.record({
        user: fc.option(fc.string({ minLength: 1, maxLength: 30 }), { nil: undefined, freq: 8 }),
        assistant: fc.string({ maxLength: 40 }),
        calls: fc.array(fc.record({ name: toolName, command, path: fc.constantFrom('a.py', 'b.py'), output }), {
          minLength: 1,
          maxLength: 2,
        }),
      }),
      { minLength: 1, maxLength: 18 },
    ),
  })
  .map((d) => ({
    system: d.system,
    task: d.task,
    turns: d.turns.map((t, i) => ({
      ...(t.user === undefined ? {} : { user: t.user }),
      assistant: t.assistant,
      calls: t.calls.map((c, k) => ({
        id: `call_${i}_${k}`,
        name: c.name,
        args: { command: c.command, path: c.path },
        output: c.output,
      })),
    })),
  }));
const shapeArb = fc.constantFrom<Shape>(...SHAPES);
const bundleArb = fc.constantFrom<BundleName | undefined>(undefined, ...COMPRESSION_MODELS);
/** The history-rewrite boundary a conversation's state may hold (0: none yet). */
const maskArb = fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 20 }));

const opts = (bundle: BundleName | undefined, maskBefore = 0) => ({ ...(bundle ? { bundle } : {}), maskBefore });
const keepOf = (bundle: BundleName | undefined) => (bundle ? BUNDLES[bundle] : GENERIC_BUNDLE).keepTurns;
const effective = (turns: number, bundle: BundleName | undefined, maskBefore: number) =>
  Math.max(0, Math.min(maskBefore, turns - keepOf(bundle)));

/** An item with its tool-result text blanked, to compare everything else. */
function withoutOutputs(item: Record<string, unknown>): unknown {
  if (item.role === 'tool') return { ...item, content: null };
  if (item.type === 'function_call_output') return { ...item, output: null };
  if (Array.isArray(item.content)) {
    return {
      ...item,
      content: (item.content as Record<string, unknown>[]).map((b) =>
        b.type === 'tool_result' ? { ...b, content: null } : b,
      ),
    };
  }
  return item;
}

const ELIDED_INPUT =
  /\[Earlier input removed to save context \([\d,]+ lines, [\d,]+ chars\): a later call read or replaced it\.\]/;

/**
 * The items with the arguments of the calls in `old` put back as the dialogue wrote them, where
 * the rewrite elided them (superseded-inputs.ts): the only change a call may ever see.
 */
function withOldInputsRestored(list: Record<string, unknown>[], d: Dialogue, old: ReadonlySet<string>): unknown[] {
  const args = argumentsOf(d);
  const restore = (id: string, sent: unknown): unknown => {
    const original = args.get(id);
    if (!old.has(id) || JSON.stringify(sent) === JSON.stringify(original)) return sent;
    assert.match(JSON.stringify(sent), ELIDED_INPUT, `the input of ${id} changed without the placeholder`);
    return original;
  };
  return list.map((item) => {
    if (Array.isArray(item.tool_calls))
      return {
        ...item,
        tool_calls: (item.tool_calls as Record<string, unknown>[]).map((c) => {
          const fn = c.function as Record<string, unknown>;
          const sent = JSON.parse(fn.arguments as string) as unknown;
          const back = restore(c.id as string, sent);
          return back === sent ? c : { ...c, function: { ...fn, arguments: JSON.stringify(back) } };
        }),
      };
    if (item.type === 'function_call') {
      const sent = JSON.parse(item.arguments as string) as unknown;
      const back = restore(item.call_id as string, sent);
      return back === sent ? item : { ...item, arguments: JSON.stringify(back) };
    }
    if (Array.isArray(item.content))
      return {
        ...item,
        content: (item.content as Record<string, unknown>[]).map((b) =>
          b.type === 'tool_use' ? { ...b, input: restore(b.id as string, b.input) } : b,
        ),
      };
    return item;
  });
}

describe('safety invariants (property-based)', () => {
  it('the output is a valid request of the same shape', () => {
    fc.assert(
      fc.property(dialogueArb, shapeArb, bundleArb, (d, shape, bundle) => {
        const body = build(d, shape);
        const out = compressPayload(body, opts(bundle)).body;
        assert.equal(detectFormat(out), detectFormat(body));
        assert.deepEqual(Object.keys(out), Object.keys(body));
        assert.equal(items(out).length, items(body).length);
        compressPayload(out, opts(bundle)); // converts again without error
      }),
      { numRuns: RUNS },
    );
  });

  it('every tool call still has its result, ids intact', () => {
    fc.assert(
      fc.property(dialogueArb, shapeArb, bundleArb, (d, shape, bundle) => {
        const body = build(d, shape);
        const out = compressPayload(body, opts(bundle)).body;
        assert.deepEqual(callIds(out), callIds(body));
        assert.deepEqual([...outputs(out).keys()], [...outputs(body).keys()]);
        for (const id of callIds(out)) assert.ok(outputs(out).has(id), id);
      }),
      { numRuns: RUNS },
    );
  });

  it('system prompt, user and assistant messages are untouched (but superseded inputs of old turns); the latest turns are never masked', () => {
    fc.assert(
      fc.property(dialogueArb, shapeArb, bundleArb, maskArb, (d, shape, bundle, maskBefore) => {
        const body = build(d, shape);
        const out = compressPayload(body, opts(bundle, maskBefore)).body;
        assert.deepEqual(out.system, body.system);
        assert.deepEqual(out.instructions, body.instructions);
        const boundary = effective(d.turns.length, bundle, maskBefore);
        const old = new Set(d.turns.slice(0, boundary).flatMap((t) => t.calls.map((c) => c.id)));
        assert.deepEqual(
          withOldInputsRestored(items(out), d, old).map((i) => withoutOutputs(i as Record<string, unknown>)),
          items(body).map(withoutOutputs),
        );
        const after = outputs(out);
        d.turns.forEach((t, i) => {
          const old = i < effective(d.turns.length, bundle, maskBefore);
          for (const c of t.calls) {
            const text = after.get(c.id)!;
            const pointer = /^\[Identical to the output of tool call (\S+) above\.\]$/.exec(text);
            // A pointer only ever goes to an identical earlier output.
            if (pointer) assert.equal(outputs(body).get(pointer[1]!), c.output);
            if (!old) assert.ok(!MASKED_RE.test(text), `turn ${i} of ${d.turns.length} was masked`);
          }
        });
      }),
      { numRuns: RUNS },
    );
  });

  it('every reference to earlier lines reconstructs the output exactly', () => {
    fc.assert(
      fc.property(dialogueArb, shapeArb, bundleArb, (d, shape, bundle) => {
        const body = build(d, shape);
        const all = outputs(compressPayload(body, opts(bundle)).body);
        const without = outputs(
          compressPayload(body, {
            ...opts(bundle),
            only: [
              'duplicate_read_elision',
              'tool_result_trimming',
              'structured_output_minification',
              'status_line_dedup',
            ],
          }).body,
        );
        // Without references, an output whose filtering alone saves no token is sent as it came
        // (CRLF, trailing blanks); compare line endings and trailing blanks loosely for those.
        const loose = (t: string) =>
          t
            .replace(/\r\n?/g, '\n')
            .replace(/[ \t]+$/gm, '')
            .trimEnd();
        for (const [id, text] of all) {
          const expanded = expandReferences(text, all, argumentsOf(d));
          if (expanded !== without.get(id)) assert.equal(loose(expanded), loose(without.get(id)!), id);
        }
      }),
      { numRuns: RUNS },
    );
  });

  it('after a history rewrite nothing visible refers to a masked output, and what it shows is unchanged', () => {
    fc.assert(
      fc.property(dialogueArb, shapeArb, bundleArb, maskArb, (d, shape, bundle, maskBefore) => {
        const body = build(d, shape);
        const first = outputs(compressPayload(body, opts(bundle)).body);
        const rewritten = outputs(compressPayload(body, opts(bundle, maskBefore)).body);
        // The full text an output stands for: pointers followed, runs written out.
        const resolve = (text: string): string => {
          const pointer = /^\[Identical to the output of tool call (\S+) above\.\]$/.exec(text);
          if (pointer) return resolve(first.get(pointer[1]!)!);
          return expandReferences(text, first, argumentsOf(d));
        };
        for (const [id, text] of rewritten) {
          if (MASKED_RE.test(text)) continue;
          for (const m of text.matchAll(/tool call (\S+?)(?: \(its lines| …\]| above\.\])/g)) {
            assert.ok(!MASKED_RE.test(rewritten.get(m[1]!)!), `${id} refers to masked ${m[1]}`);
          }
          assert.equal(resolve(text), resolve(first.get(id)!), id);
        }
      }),
      { numRuns: RUNS },
    );
  });

  it('no error or failure line of the newest outputs is lost', () => {
    fc.assert(
      fc.property(dialogueArb, shapeArb, bundleArb, (d, shape, bundle) => {
        const body = build(d, shape);
        const after = outputs(compressPayload(body, opts(bundle, 20)).body);
        for (const c of d.turns[d.turns.length - 1]!.calls) {
          const text = after.get(c.id)!;
          if (/^\[Identical to the output of tool call/.test(text)) continue;
          for (const line of normalize(c.output, { fileContent: false }).split('\n')) {
            // Search and listing filters group rows under their directory: `dir/` then `  file:…`.
            const row = line.trim();
            if (isErrorLine(line))
              assert.ok(text.includes(row) || text.includes(row.replace(/^\S*\//, '')), `lost: ${line}`);
          }
        }
      }),
      { numRuns: RUNS },
    );
  });

  it('compressed tokens never exceed the original, and both equal a full count of their body', () => {
    fc.assert(
      fc.property(dialogueArb, shapeArb, bundleArb, (d, shape, bundle) => {
        const body = build(d, shape);
        const result = compressPayload(body, opts(bundle));
        const c = result.compression;
        // The compressed count is derived from the original's (only rewritten items are
        // counted again); it must be what counting the returned body from scratch gives.
        const tokenizer = tokenizerFor(body);
        assert.equal(c.uncompressed_input_tokens, countBodyTokens(body, detectFormat(body), tokenizer));
        assert.equal(c.compressed_input_tokens, countBodyTokens(result.body, detectFormat(body), tokenizer));
        assert.ok(c.compressed_input_tokens <= c.uncompressed_input_tokens);
        assert.ok(c.compression_rate >= 0 && c.compression_rate < 1);
        if (c.applied_strategies.length === 0) assert.equal(c.compression_rate, 0);
      }),
      { numRuns: RUNS },
    );
  });

  it('compressing twice equals compressing once', () => {
    fc.assert(
      fc.property(dialogueArb, shapeArb, bundleArb, (d, shape, bundle) => {
        const once = compressPayload(build(d, shape), opts(bundle)).body;
        const twice = compressPayload(once, opts(bundle)).body;
        assert.equal(JSON.stringify(twice), JSON.stringify(once));
      }),
      { numRuns: RUNS },
    );
  });

  it('cache stability: one more turn leaves the shared prefix byte-identical unless the rewrite boundary moved', () => {
    fc.assert(
      fc.property(dialogueArb, shapeArb, bundleArb, maskArb, (d, shape, bundle, maskBefore) => {
        fc.pre(d.turns.length >= 2);
        const shorter = { ...d, turns: d.turns.slice(0, -1) };
        fc.pre(effective(shorter.turns.length, bundle, maskBefore) === effective(d.turns.length, bundle, maskBefore));
        const a = compressPayload(build(shorter, shape), opts(bundle, maskBefore)).body;
        const b = compressPayload(build(d, shape), opts(bundle, maskBefore)).body;
        assert.equal(JSON.stringify(b.system ?? b.instructions), JSON.stringify(a.system ?? a.instructions));
        assert.equal(JSON.stringify(b.tools), JSON.stringify(a.tools));
        items(a).forEach((item, i) => assert.equal(JSON.stringify(items(b)[i]), JSON.stringify(item), `item ${i}`));
      }),
      { numRuns: RUNS },
    );
  });
});

describe('references between numbered views', () => {
  it('a renumbered run stops where the numbers change width on one side only (10: shown again as 9:)', () => {
    // Found by the property above (seed 2006153680): lines numbered 2-10 shown again as 1-9 were
    // one run, and written back from the old lines "10:" came out " 9:".
    const statements = Array.from(
      { length: 9 },
      (_, i) => `    statement_${i} = compute(${i % 7}, opt=${i % 3 === 0})`,
    );
    const view = (from: number, lines: string[]) => lines.map((line, i) => `${from + i}:${line}`).join('\n');
    const d: Dialogue = {
      system: '',
      task: 'Fix it.',
      turns: [
        {
          assistant: '',
          calls: [
            {
              id: 'call_0',
              name: 'bash',
              args: { command: 'cat -n a.py' },
              output: `Original:\n${view(1, ['    inserted = True', ...statements])}`,
            },
          ],
        },
        {
          assistant: '',
          calls: [
            {
              id: 'call_1',
              name: 'bash',
              args: { command: 'cat -n a.py' },
              output: `Original:\n${view(1, statements)}`,
            },
          ],
        },
      ],
    };
    const body = build(d, 'chat');
    const all = outputs(compressPayload(body, opts(undefined)).body);
    const plain = outputs(
      compressPayload(body, {
        ...opts(undefined),
        only: ['duplicate_read_elision', 'tool_result_trimming', 'status_line_dedup'],
      }).body,
    );
    for (const [id, text] of all) assert.equal(expandReferences(text, all, argumentsOf(d)), plain.get(id), id);
  });
});

describe('invariants on a real trajectory (SWE-agent, function calling)', () => {
  it('every prefix: ids intact, idempotent, byte-stable from one turn to the next', async () => {
    const { marshmallowChat } = await import('./helpers/fixtures.js');
    const msgs = marshmallowChat.messages;
    let previous: Record<string, unknown>[] | undefined;
    for (let i = 1; i < msgs.length; i++) {
      if (msgs[i]!.role !== 'assistant') continue;
      const body = { model: 'openai/gpt-4o', messages: msgs.slice(0, i) };
      const out = compressPayload(body).body;
      assert.deepEqual(callIds(out), callIds(body));
      assert.equal(JSON.stringify(compressPayload(out).body), JSON.stringify(out));
      previous?.forEach((m, k) => assert.equal(JSON.stringify(items(out)[k]), JSON.stringify(m)));
      previous = items(out);
    }
  });
});
