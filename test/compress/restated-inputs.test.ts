// A call that restates a whole list (strategies/restated-inputs.ts): shown at first sight as its
// changes to the latest call of the same tool shown in full, from which the list rebuilds exactly;
// in full when that is not shorter, or when a rewrite elided its base.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { compressPayload } from '../../src/compress/index.js';
import { build, items, SHAPES, type Call, type Dialogue, type Shape } from './helpers/build.js';
import { loadDataset, prefixes, toShape } from '../../bench/compress/dataset.js';

type Obj = Record<string, unknown>;

const todos = (done: number, n = 6) =>
  Array.from({ length: n }, (_, i) => ({
    content: `Step ${i}: do the part of the work numbered ${i} carefully`,
    status: i < done ? 'completed' : i === done ? 'in_progress' : 'pending',
    activeForm: `Doing step ${i} of the work`,
  }));
const other = () =>
  Array.from({ length: 6 }, (_, i) => ({
    content: `Another plan, item ${i}, with nothing in common`,
    status: 'cancelled',
    activeForm: `Working on item ${i}`,
  }));

const call = (id: string, name: string, args: Obj, output = 'ok'): Call => ({ id, name, args, output });
const turn = (...calls: Call[]) => ({ assistant: 'Next.', calls });
const ack = 'Todos have been modified successfully.';

/** The arguments of every call as the body sends them, by call id, in order. */
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

/** One JSON value of `s` from `at`, and where it ends. */
function readJson(s: string, at: number): [unknown, number] {
  let depth = 0;
  let inString = false;
  for (let i = at; i < s.length; i++) {
    const c = s[i]!;
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') {
        inString = false;
        if (depth === 0) return [JSON.parse(s.slice(at, i + 1)), i + 1];
      }
    } else if (c === '"') inString = true;
    else if (c === '{' || c === '[') depth++;
    else if (c === '}' || c === ']') {
      depth--;
      if (depth === 0) return [JSON.parse(s.slice(at, i + 1)), i + 1];
    } else if (depth === 0 && /[,;\]\s]/.test(c)) return [JSON.parse(s.slice(at, i)), i];
  }
  return [JSON.parse(s.slice(at)), s.length];
}

/** The list a marker stands for, rebuilt from the base call's list: what a reader of it can do. */
function rebuild(marker: string, arg: string, lists: Map<string, unknown[]>): unknown[] {
  const same = new RegExp(`^\\[Same as the ${arg} of tool call (\\S+)\\.\\]$`).exec(marker);
  if (same) return structuredClone(lists.get(same[1]!)!);
  const head = new RegExp(`^\\[As the ${arg} of tool call (\\S+), (\\d+) items in all, with these changes: `).exec(
    marker,
  );
  assert.ok(head, `a marker: ${marker}`);
  const base = lists.get(head[1]!);
  assert.ok(base, `its base ${head[1]} is shown in full`);
  const out = structuredClone(base).slice(0, Number(head[2]));
  let at = head[0].length;
  while (marker[at] !== ']') {
    const index = /^(\d+) /.exec(marker.slice(at))!;
    at += index[0].length;
    const i = Number(index[1]) - 1;
    if (marker[at] === '{') {
      const [item, end] = readJson(marker, at);
      out[i] = item;
      at = end;
    } else {
      const item = { ...(out[i] as Obj) };
      for (;;) {
        const key = /^(\w+) /.exec(marker.slice(at))!;
        const [value, end] = readJson(marker, at + key[0].length);
        item[key[1]!] = value;
        at = end;
        if (marker.startsWith(', ', at)) at += 2;
        else break;
      }
      out[i] = item;
    }
    if (marker.startsWith('; ', at)) at += 2;
  }
  assert.equal(out.length, Number(head[2]));
  return out;
}

/** Every restating call's list as the model can read it back, checked against what it sent. */
function assertRebuilds(source: Obj, result: Obj, name = 'TodoWrite', arg = 'todos'): number {
  const before = argsOf(source);
  const after = argsOf(result);
  const lists = new Map<string, unknown[]>();
  let asChanges = 0;
  for (const [id, args] of after) {
    const original = before.get(id)!;
    if (!Array.isArray(original[arg])) continue;
    const shown = args[arg];
    if (typeof shown === 'string' && shown.startsWith('[Earlier input removed')) continue;
    if (Array.isArray(shown)) lists.set(id, shown);
    else {
      assert.deepEqual(rebuild(shown as string, arg, lists), original[arg], `${name} ${id} rebuilds`);
      asChanges++;
    }
    assert.deepEqual({ ...args, [arg]: original[arg] }, original, 'the other arguments stay');
  }
  return asChanges;
}

const dialogue: Dialogue = {
  system: 'You are a coding agent.',
  task: 'Fix the bug.',
  turns: [
    turn(call('t1', 'TodoWrite', { todos: todos(0) }, ack)),
    turn(call('b1', 'Bash', { command: 'npm test' })),
    turn(call('t2', 'TodoWrite', { todos: todos(1) }, ack)),
    turn(call('t3', 'TodoWrite', { todos: todos(2, 7) }, ack)),
    turn(call('t4', 'TodoWrite', { todos: other() }, ack)),
    turn(call('t5', 'TodoWrite', { todos: todos(3, 4) }, ack)),
    turn(call('t6', 'TodoWrite', { todos: todos(3, 4) }, ack)),
    turn(call('b2', 'Bash', { command: 'git status' })),
  ],
};

describe('restated lists shown as their changes', () => {
  for (const shape of SHAPES as Shape[]) {
    it(`${shape}: each todo list after the first is its changes to the latest full one, and rebuilds exactly`, () => {
      const source = build(dialogue, shape);
      const result = compressPayload(source, { bundle: 'claude' });
      const after = argsOf(result.body);
      assert.ok(Array.isArray(after.get('t1')!.todos), 'the first list is shown in full');
      assert.match(
        after.get('t2')!.todos as string,
        /^\[As the todos of tool call t1, 6 items in all, with these changes: 1 status "completed"; 2 status "in_progress"\]$/,
      );
      assert.match(
        after.get('t3')!.todos as string,
        /^\[As the todos of tool call t1, 7 items in all, /,
        'against t1, not t2',
      );
      // Nothing in common with t1 (every field of every item new): the changes would be longer
      // than the list, so it is shown in full and is the base of the next ones.
      assert.ok(Array.isArray(after.get('t4')!.todos));
      assert.ok(Array.isArray(after.get('t5')!.todos), 'nothing in common with t4 either');
      assert.equal(after.get('t6')!.todos, '[Same as the todos of tool call t5.]');
      assert.equal(assertRebuilds(source, result.body), 3);
      assert.ok(result.compression.applied_strategies.includes('restated_input_as_changes'));
      assert.ok(result.compression.compressed_input_tokens < result.compression.uncompressed_input_tokens);
    });
  }

  it('an unchanged list is named as the same', () => {
    const same: Dialogue = {
      ...dialogue,
      turns: [dialogue.turns[0]!, turn(call('t2', 'TodoWrite', { todos: todos(0) }, ack))],
    };
    const after = argsOf(compressPayload(build(same, 'messages'), { bundle: 'claude' }).body);
    assert.equal(after.get('t2')!.todos, '[Same as the todos of tool call t1.]');
  });

  it('one more turn leaves every earlier item byte-identical', () => {
    const longer: Dialogue = {
      ...dialogue,
      turns: [...dialogue.turns, turn(call('t7', 'TodoWrite', { todos: todos(4) }, ack))],
    };
    const a = items(compressPayload(build(dialogue, 'messages'), { bundle: 'claude' }).body);
    const b = items(compressPayload(build(longer, 'messages'), { bundle: 'claude' }).body);
    assert.equal(JSON.stringify(b.slice(0, a.length)), JSON.stringify(a));
  });

  it('a rewrite that elides the base shows the latest list before the boundary in full, and the later ones against it', () => {
    const long: Dialogue = {
      ...dialogue,
      turns: [
        turn(call('t1', 'TodoWrite', { todos: todos(0) }, ack)),
        turn(call('t2', 'TodoWrite', { todos: todos(1) }, ack)),
        turn(call('t3', 'TodoWrite', { todos: todos(2) }, ack)),
        turn(call('b1', 'Bash', { command: 'npm test' })),
        turn(call('t4', 'TodoWrite', { todos: todos(3) }, ack)),
        ...['ls', 'pwd', 'git status', 'git diff'].map((c, i) => turn(call(`k${i}`, 'Bash', { command: c }))),
      ],
    };
    const source = build(long, 'messages');
    const result = compressPayload(source, { bundle: 'claude', maskBefore: 4 });
    const after = argsOf(result.body);
    assert.match(after.get('t1')!.todos as string, /^\[Earlier input removed/);
    assert.match(after.get('t2')!.todos as string, /^\[Earlier input removed/);
    assert.deepEqual(after.get('t3')!.todos, todos(2), 'its base is gone: in full');
    assert.match(after.get('t4')!.todos as string, /^\[As the todos of tool call t3, /);
    assertRebuilds(source, result.body);
  });

  const sessions = '/work/shared/datasets/claude-code-sessions';
  it(
    'every todo list of the Claude Code sessions rebuilds exactly from what is sent',
    { skip: !existsSync(sessions) },
    () => {
      let asChanges = 0;
      for (const conv of loadDataset(sessions)) {
        const requests = prefixes(conv);
        const source = toShape(requests[requests.length - 1]!, 'messages') as Obj;
        const result = compressPayload(structuredClone(source), { bundle: 'claude' });
        asChanges += assertRebuilds(source, result.body as Obj);
      }
      assert.ok(asChanges > 50, `${asChanges} lists shown as changes`);
    },
  );
});
