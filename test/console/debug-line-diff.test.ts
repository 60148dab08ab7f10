import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { lineDiff } from '../../src/console/debug/line-diff.js';
import { captureDiff, valueLines } from '../../src/console/debug/capture-diff.js';

describe('line diff of debug captures', () => {
  it('marks removed and added lines between unchanged ones, and folds long unchanged runs', () => {
    const left = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'old', 'i'];
    const right = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'new', 'i'];
    assert.deepEqual(lineDiff(left, right), [
      { op: 'skip', count: 5 },
      { op: 'same', text: 'f' },
      { op: 'same', text: 'g' },
      { op: 'same', text: 'h' },
      { op: 'removed', text: 'old' },
      { op: 'added', text: 'new' },
      { op: 'same', text: 'i' },
    ]);
  });

  it('finds the common lines in a changed middle', () => {
    const ops = lineDiff(['x', '1', '2', '3', 'y'], ['x', '1', 'kept', '3', 'y']).map((l) =>
      l.op === 'skip' ? 'skip' : `${l.op}:${l.text}`,
    );
    assert.deepEqual(ops, ['same:x', 'same:1', 'removed:2', 'added:kept', 'same:3', 'same:y']);
  });

  it("a string's line breaks are lines of their own, named by the path to the string", () => {
    assert.deepEqual(valueLines({ role: 'tool', content: [{ type: 'text', text: 'one\ntwo' }] }), [
      'role: tool',
      'content[0].type: text',
      'content[0].text: one',
      'two',
    ]);
  });

  it('pairs items by position: unchanged, changed with its lines, added', () => {
    const received = {
      model: 'm',
      messages: [
        { role: 'user', content: 'hi' },
        { role: 'tool', content: 'a\nb\nc' },
      ],
    };
    const sent = {
      model: 'm',
      messages: [
        { role: 'user', content: 'hi' },
        { role: 'tool', content: 'a\nc' },
        { role: 'user', content: 'extra' },
      ],
    };
    const diff = captureDiff(JSON.stringify(received), JSON.stringify(sent));
    assert.equal(diff.comparable, true);
    assert.equal(diff.item_list, 'messages');
    assert.deepEqual(
      diff.items.map((i) => i.status),
      ['unchanged', 'changed', 'added'],
    );
    assert.ok(diff.items[1]!.lines!.some((l) => l.op === 'removed' && l.text === 'b'));
    assert.equal(diff.summary.changed, 1);
    assert.ok(diff.other_members.every((l) => l.op === 'same' || l.op === 'skip'));
  });

  it('a body cut at the cap is not compared', () => {
    const diff = captureDiff('{"messages":[', '{}');
    assert.equal(diff.comparable, false);
    assert.match(diff.reason!, /received body/);
  });
});
