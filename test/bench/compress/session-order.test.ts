// Which sessions cost.ts replays (bench/compress/session-order.ts): hold-out halves and parts.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { half, part } from '../../../bench/compress/session-order.js';
import type { Conversation } from '../../../bench/compress/dataset.js';

const named = (...names: string[]) => names.map((name) => ({ name }) as unknown as Conversation);
const names = (cs: Conversation[]) => cs.map((c) => c.name);
// Five sessions, one with a subagent, in Codex shape for one of them.
const all = named('s1', 's1/agent-a', 's2 (codex exec)', 's2/agent-b (codex exec)', 's3', 's4', 's5');

describe('cost.ts session selection', () => {
  it('--part K/N: every N-th session from the K-th, a subagent with its main thread', () => {
    assert.deepEqual(names(part(all, '1/3')), ['s1', 's1/agent-a', 's4']);
    assert.deepEqual(names(part(all, '2/3')), ['s2 (codex exec)', 's2/agent-b (codex exec)', 's5']);
    assert.deepEqual(names(part(all, '3/3')), ['s3']);
  });

  it('the parts of one N are disjoint and cover every session', () => {
    for (const n of [1, 2, 3, 4]) {
      const parts = Array.from({ length: n }, (_, k) => names(part(all, `${k + 1}/${n}`)));
      assert.deepEqual(parts.flat().sort(), names(all).sort());
    }
  });

  it('--half a|b is --part 1/2 and 2/2', () => {
    assert.deepEqual(names(half(all, 'a')), names(part(all, '1/2')));
    assert.deepEqual(names(half(all, 'b')), names(part(all, '2/2')));
  });

  it('rejects a part outside 1..N', () => {
    assert.throws(() => part(all, '0/3'), /--part/);
    assert.throws(() => part(all, '4/3'), /--part/);
    assert.throws(() => part(all, 'a'), /--part/);
  });
});
