// History rewrite of old tool-call inputs (strategies/superseded-inputs.ts): under a rewrite
// boundary, the body of an edit whose file a later call (before the boundary) read or wrote
// again, and a todo list a later todo call replaced, become a placeholder; everything else the
// model wrote stays byte for byte, in all three request shapes.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { compressPayload } from '../../src/compress/index.js';
import { build, items, SHAPES, type Call, type Dialogue, type Shape } from './helpers/build.js';

type Obj = Record<string, unknown>;

const body = (n: number, what: string) =>
  Array.from({ length: n }, (_, i) => `export const ${what}_${i} = compute(${i}, "${what}");`).join('\n');
const todos = (done: number) =>
  Array.from({ length: 6 }, (_, i) => ({
    content: `Step ${i}: do the part of the work numbered ${i} carefully`,
    status: i < done ? 'completed' : 'pending',
    activeForm: `Doing step ${i}`,
  }));

const call = (id: string, name: string, args: Obj, output = 'ok'): Call => ({ id, name, args, output });
const turn = (...calls: Call[]) => ({ assistant: 'Next.', calls });

// Turns 0-5 before the boundary (6), then the 4 kept turns.
const dialogue: Dialogue = {
  system: 'You are a coding agent.',
  task: 'Fix the bug.',
  turns: [
    turn(
      call(
        'w1',
        'Write',
        { file_path: '/src/a.ts', content: body(30, 'a') },
        'File created successfully at: /src/a.ts',
      ),
    ),
    turn(call('t1', 'TodoWrite', { todos: todos(0) }, 'Todos have been modified successfully.')),
    turn(call('e1', 'Edit', { file_path: '/src/b.ts', old_string: body(12, 'b'), new_string: body(12, 'c') })),
    turn(call('r1', 'Read', { file_path: '/src/a.ts' }, body(30, 'a'))),
    turn(call('t2', 'TodoWrite', { todos: todos(2) }, 'Todos have been modified successfully.')),
    turn(call('w2', 'Write', { file_path: '/src/c.ts', content: body(30, 'x') })),
    // Kept turns: a read of /src/c.ts here must not touch w2 (it is after the boundary).
    turn(call('r2', 'Read', { file_path: '/src/c.ts' }, body(30, 'x'))),
    turn(call('t3', 'TodoWrite', { todos: todos(4) }, 'Todos have been modified successfully.')),
    turn(call('b1', 'Bash', { command: 'npm test' }, 'ok')),
    turn(call('b2', 'Bash', { command: 'git status' }, 'clean')),
  ],
};

/** The arguments of every call as the body sends them, by call id. */
function argsOf(b: Obj): Map<string, Obj> {
  const out = new Map<string, Obj>();
  for (const it of items(b)) {
    for (const c of (it.tool_calls as Obj[] | undefined) ?? [])
      out.set(c.id as string, JSON.parse((c.function as Obj).arguments as string) as Obj);
    if (it.type === 'function_call') out.set(it.call_id as string, JSON.parse(it.arguments as string) as Obj);
    if (Array.isArray(it.content))
      for (const blk of it.content as Obj[]) if (blk.type === 'tool_use') out.set(blk.id as string, blk.input as Obj);
  }
  return out;
}

const PLACEHOLDER =
  /^\[Earlier input removed to save context \(\d+ lines, [\d,]+ chars\): a later call read or replaced it\.\]$/;

describe('superseded tool-call inputs under the rewrite boundary', () => {
  for (const shape of SHAPES as Shape[]) {
    it(`${shape}: elides a Write read again and an old todo list, nothing else`, () => {
      const source = build(dialogue, shape);
      const result = compressPayload(source, { bundle: 'claude', maskBefore: 6 });
      const before = argsOf(source);
      const after = argsOf(result.body);
      assert.match(after.get('w1')!.content as string, PLACEHOLDER);
      assert.equal(after.get('w1')!.file_path, '/src/a.ts', 'the path stays');
      assert.match(after.get('t1')!.todos as string, PLACEHOLDER);
      // The newest todo list before the boundary, an edit of a file never touched again, a write
      // whose later read is after the boundary, and every call after the boundary: untouched.
      for (const id of ['t2', 'e1', 'w2', 'r1', 'r2', 'b1', 'b2'])
        assert.deepEqual(after.get(id), before.get(id), `${id} kept`);
      // The later todo list is shown as its changes to t2, the latest one in full
      // (strategies/restated-inputs.ts, test/compress/restated-inputs.test.ts).
      assert.match(after.get('t3')!.todos as string, /^\[As the todos of tool call t2, 6 items in all, /);
      assert.ok(result.compression.applied_strategies.includes('superseded_input_elision'));
      assert.ok(result.compression.compressed_input_tokens < result.compression.uncompressed_input_tokens);
    });
  }

  it('without a boundary nothing is elided (later todo lists are shown as their changes to the first)', () => {
    const source = build(dialogue, 'messages');
    const result = compressPayload(source, { bundle: 'claude' });
    const after = argsOf(result.body);
    const before = argsOf(source);
    for (const [id, args] of before) {
      if (id === 't2' || id === 't3') assert.match(after.get(id)!.todos as string, /^\[As the todos of tool call t1, /);
      else assert.deepEqual(after.get(id), args, `${id} kept`);
    }
  });

  it('one more turn with the same boundary leaves every earlier item byte-identical', () => {
    const longer: Dialogue = { ...dialogue, turns: [...dialogue.turns, turn(call('b3', 'Bash', { command: 'ls' }))] };
    const a = items(compressPayload(build(dialogue, 'messages'), { bundle: 'claude', maskBefore: 6 }).body);
    const b = items(compressPayload(build(longer, 'messages'), { bundle: 'claude', maskBefore: 6 }).body);
    assert.equal(JSON.stringify(b.slice(0, a.length)), JSON.stringify(a));
  });

  it('an output that quoted the elided input gets those lines written out', () => {
    // The file printed back: first sight refers to the Write's content; once that content is
    // elided, the reference would point into a placeholder.
    const printed = `${body(30, 'a')}\n// end`;
    const withCat: Dialogue = {
      ...dialogue,
      turns: dialogue.turns.map((t, i) =>
        i === 3 ? turn(call('r1', 'Read', { file_path: '/src/a.ts' }, printed)) : t,
      ),
    };
    const source = build(withCat, 'chat');
    const firstSight = compressPayload(source, { bundle: 'claude' });
    const readAt = items(source).findIndex((m) => m.tool_call_id === 'r1');
    assert.match(items(firstSight.body)[readAt]!.content as string, /as in the content argument of tool call w1/);
    const rewritten = compressPayload(source, { bundle: 'claude', maskBefore: 6 });
    assert.equal(items(rewritten.body)[readAt]!.content, printed);
  });

  it('a shell heredoc that wrote a file read or written again later keeps its first line only', () => {
    const heredoc = (path: string, what: string) => `cat <<'EOF' > ${path}\n${body(12, what)}\nEOF`;
    const shell: Dialogue = {
      system: 'You are a coding agent.',
      task: 'Fix the bug.',
      turns: [
        turn(call('h1', 'bash', { command: heredoc('reproduce.py', 'r') })),
        turn(call('h2', 'bash', { command: heredoc('check.py', 'k') })),
        turn(call('h3', 'bash', { command: heredoc('notes.py', 'n') })),
        turn(call('p1', 'bash', { command: 'python check.py' })),
        turn(call('c1', 'bash', { command: "sed -n '1,20p' /testbed/reproduce.py" }, body(12, 'r'))),
        turn(call('h4', 'bash', { command: heredoc('notes.py', 'm') })),
        ...['ls', 'pwd', 'git status', 'git diff'].map((c, i) => turn(call(`k${i}`, 'bash', { command: c }))),
      ],
    };
    const source = build(shell, 'chat');
    const after = argsOf(compressPayload(source, { maskBefore: 6 }).body);
    const before = argsOf(source);
    const [first, placeholder, ...rest] = (after.get('h1')!.command as string).split('\n');
    assert.equal(first, "cat <<'EOF' > reproduce.py");
    assert.match(placeholder!, PLACEHOLDER);
    assert.deepEqual(rest, []);
    assert.match((after.get('h3')!.command as string).split('\n')[1]!, PLACEHOLDER, 'written again by h4');
    // Run, not read: kept. The latest write of a file: kept.
    for (const id of ['h2', 'p1', 'c1', 'h4']) assert.deepEqual(after.get(id), before.get(id), `${id} kept`);
  });
  it("Codex's apply_patch: a patch of one file read again keeps its header, a patch of two files stays", () => {
    const patch = (files: string[], what: string) =>
      `*** Begin Patch\n${files.map((f) => `*** Update File: ${f}\n@@\n-${body(6, `${what}_old`)}\n+${body(6, what)}`).join('\n')}\n*** End Patch`;
    const codex: Dialogue = {
      system: 'You are Codex.',
      task: 'Fix the bug.',
      turns: [
        turn(call('p1', 'apply_patch', { input: patch(['src/a.ts'], 'a') }, 'Success. Updated: src/a.ts')),
        turn(call('p2', 'apply_patch', { input: patch(['src/b.ts', 'src/c.ts'], 'b') }, 'Success.')),
        turn(call('p3', 'apply_patch', { input: patch(['src/d.ts'], 'd') }, 'Success. Updated: src/d.ts')),
        turn(call('n1', 'exec_command', { cmd: 'nl -ba src/a.ts' }, body(6, 'a'))),
        turn(call('n2', 'exec_command', { cmd: 'nl -ba src/b.ts' }, body(6, 'b'))),
        turn(call('q1', 'exec_command', { cmd: 'ls' })),
        ...['pwd', 'git status', 'git diff', 'ls src'].map((c, i) => turn(call(`k${i}`, 'exec_command', { cmd: c }))),
      ],
    };
    const source = build(codex, 'responses');
    const after = argsOf(compressPayload(source, { bundle: 'codex', maskBefore: 6 }).body);
    const before = argsOf(source);
    const [begin, update, placeholder, ...rest] = (after.get('p1')!.input as string).split('\n');
    assert.deepEqual([begin, update], ['*** Begin Patch', '*** Update File: src/a.ts']);
    assert.match(placeholder!, PLACEHOLDER);
    assert.deepEqual(rest, []);
    // Two files in one patch, and a file never read again: kept byte for byte.
    for (const id of ['p2', 'p3', 'n1', 'n2']) assert.deepEqual(after.get(id), before.get(id), `${id} kept`);
  });
});
