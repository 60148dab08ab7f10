import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { strategyList } from '../../src/pipeline/apply-compression.js';

describe('the strategies a usage row records', () => {
  it('lists each strategy once, in the order applied', () => {
    assert.equal(
      strategyList(['exact_repeats', 'mask_old_outputs', 'exact_repeats']),
      'exact_repeats,mask_old_outputs',
    );
    assert.equal(strategyList([]), '');
  });

  it('stops at a whole name within 500 characters, however many strategies ran', () => {
    const names = Array.from({ length: 100 }, (_, i) => `strategy_number_${i}`);
    const list = strategyList(names);
    assert.ok(list.length <= 500, `${list.length} characters`);
    assert.ok(
      list.split(',').every((name) => names.includes(name)),
      'no name cut in half',
    );
    assert.ok(list.split(',').length > 10);
  });
});
