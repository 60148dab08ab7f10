import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { AddressPenalties } from '../../src/server/address-penalties.js';

/** The penalty box's bookkeeping, on a clock the test moves. */
function box(cuts = 3, windowMs = 1_000, cooldownMs = 5_000, ignoredRefusals = 4) {
  const clock = { now: 0 };
  return { clock, penalties: new AddressPenalties({ cuts, windowMs, cooldownMs, ignoredRefusals }, () => clock.now) };
}

describe('address penalties', () => {
  it('boxes an address that keeps sending while refused, at the n-th such request within the window', () => {
    const { clock, penalties } = box();
    for (let i = 0; i < 3; i++) assert.equal(penalties.ignoredRefusal('10.0.0.1'), false);
    penalties.ignoredRefusal('10.0.0.2');
    clock.now = 900;
    assert.equal(penalties.ignoredRefusal('10.0.0.1'), true, 'the fourth within the window');
    assert.equal(penalties.isBoxed('10.0.0.1'), true);
    assert.equal(penalties.isBoxed('10.0.0.2'), false);
    assert.equal(penalties.ignoredRefusal('10.0.0.1'), true, 'still boxed: its connections keep being closed');
    clock.now = 900 + 5_000;
    assert.equal(penalties.isBoxed('10.0.0.1'), false, 'free again after the cool-down');
  });

  it('counts ignored refusals in a window that starts again once it has passed', () => {
    const { clock, penalties } = box();
    for (let i = 0; i < 3; i++) penalties.ignoredRefusal('10.0.0.1');
    clock.now = 1_001;
    assert.equal(penalties.ignoredRefusal('10.0.0.1'), false, 'a new window: one so far');
    assert.equal(box(3, 1_000, 5_000, 0).penalties.ignoredRefusal('10.0.0.1'), false, '0 turns it off');
  });

  it('boxes an address at its n-th cut within the window, and only that address', () => {
    const { clock, penalties } = box();
    assert.equal(penalties.cut('10.0.0.1'), false);
    penalties.cut('10.0.0.2');
    clock.now = 400;
    assert.equal(penalties.cut('10.0.0.1'), false);
    assert.equal(penalties.isBoxed('10.0.0.1'), false);
    clock.now = 900;
    assert.equal(penalties.cut('10.0.0.1'), true);
    assert.equal(penalties.isBoxed('10.0.0.1'), true);
    assert.equal(penalties.isBoxed('10.0.0.2'), false, 'one cut of its own, boxed for nobody else');
    assert.equal(penalties.boxedCount, 1);
  });

  it('forgets cuts older than the window', () => {
    const { clock, penalties } = box();
    penalties.cut('10.0.0.1');
    penalties.cut('10.0.0.1');
    clock.now = 1_001;
    assert.equal(penalties.cut('10.0.0.1'), false, 'the first two are outside the window');
    clock.now = 1_500;
    assert.equal(penalties.cut('10.0.0.1'), false);
    clock.now = 1_900;
    assert.equal(penalties.cut('10.0.0.1'), true, 'three within 900 ms');
  });

  it('lets the address in again when the cool-down ends, with a fresh count', () => {
    const { clock, penalties } = box();
    for (let i = 0; i < 3; i++) penalties.cut('10.0.0.1');
    clock.now = 4_999;
    assert.equal(penalties.isBoxed('10.0.0.1'), true);
    assert.equal(penalties.remainingMs('10.0.0.1'), 1, 'what a Retry-After is computed from');
    assert.equal(penalties.remainingMs('10.0.0.2'), 0);
    clock.now = 5_000;
    assert.equal(penalties.remainingMs('10.0.0.1'), 0);
    assert.equal(penalties.isBoxed('10.0.0.1'), false);
    assert.equal(penalties.boxedCount, 0);
    assert.equal(penalties.cut('10.0.0.1'), false, 'the cuts that boxed it are not counted again');
  });

  it('never boxes anyone when the threshold is 0', () => {
    const { penalties } = box(0);
    for (let i = 0; i < 100; i++) assert.equal(penalties.cut('10.0.0.1'), false);
    assert.equal(penalties.isBoxed('10.0.0.1'), false);
  });

  it('keeps its memory bounded however many addresses are cut', () => {
    const { penalties } = box(1, 1_000, 60_000);
    for (let i = 0; i < 100_010; i++) penalties.cut(`a${i}`);
    assert.equal(penalties.boxedCount, 100_000);
    assert.equal(penalties.isBoxed('a0'), false, 'the oldest entries were forgotten');
    assert.equal(penalties.isBoxed('a100009'), true);
  });
});
