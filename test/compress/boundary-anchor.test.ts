import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { cachePricingFor } from '../../src/catalogue/cache-pricing.js';
import { bundleFor } from '../../src/compress/bundles.js';
import { readRequest } from '../../src/compress/formats/index.js';
import { compressPayload } from '../../src/compress/index.js';
import { boundaryAnchorItem } from '../../src/compress/pipeline.js';

type Obj = Record<string, unknown>;

const pricing = cachePricingFor('openai', { input_per_mtok: 1.25, output_per_mtok: 10, cached_input_per_mtok: 0.125 });
const call = (id: string, name: string, args: object): Obj => ({
  role: 'assistant',
  content: null,
  tool_calls: [{ id, type: 'function', function: { name, arguments: JSON.stringify(args) } }],
});
const listing = Array.from({ length: 80 }, (_, i) => `line ${i} of a long listing that is worth masking later`).join(
  '\n',
);

/** system 0, task 1, then each call and its result. */
const chat = (...turns: Obj[][]): Obj => ({
  model: 'gpt-5',
  messages: [{ role: 'system', content: 'sys' }, { role: 'user', content: 'task' }, ...turns.flat()],
});
const anchorOf = (body: Obj) =>
  compressPayload(body, { conversation: { pricing, state: undefined, now: 0 } }).conversation!.anchorItem;

const statusTurn = [
  call('a', 'Bash', { command: 'git status' }),
  { role: 'tool', tool_call_id: 'a', content: 'clean' },
];
const listingTurn = [call('b', 'Bash', { command: 'ls -R' }), { role: 'tool', tool_call_id: 'b', content: listing }];
const lastTurn = [call('c', 'Bash', { command: 'true' }), { role: 'tool', tool_call_id: 'c', content: '' }];

describe('the boundary breakpoint', () => {
  it('sits after an output too short to mask and its call: before the first output a rewrite would replace', () => {
    // The first output ("clean") stays as it is in every rewrite: the breakpoint goes on the
    // assistant message that asked for the listing (item 4), not on the first call (item 2).
    assert.equal(anchorOf(chat(statusTurn, listingTurn, lastTurn)), 4);
  });

  it('sits before a call whose input a later rewrite could elide (a Write of a whole file)', () => {
    const write = [
      call('w', 'Write', { file_path: 'a.py', content: listing }),
      { role: 'tool', tool_call_id: 'w', content: 'ok' },
    ];
    assert.equal(anchorOf(chat(write, statusTurn, listingTurn, lastTurn)), 1);
  });

  it('sits before the latest todo list under the boundary: the next move of the boundary supersedes it', () => {
    const todos = (id: string) => [
      call(id, 'TodoWrite', { todos: [{ content: `step ${id} `.repeat(60), status: 'pending' }] }),
      { role: 'tool', tool_call_id: id, content: 'Todos have been modified successfully.' },
    ];
    // Turns: todo 1 (items 2–3), todo 2 (4–5), status, listing, and five more; boundary at turn 3.
    const turns = [todos('t1'), todos('t2'), statusTurn, listingTurn, lastTurn, lastTurn, lastTurn, lastTurn, lastTurn];
    assert.equal(boundaryAnchorItem(readRequest(chat(...turns)).conversation, 3, bundleFor(undefined)), 3);
  });
});
