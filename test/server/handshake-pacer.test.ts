import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { HandshakePacer } from '../../src/server/handshake-pacer.js';

/** Burns `ms` of wall time on the event loop, like a handshake's synchronous crypto. */
function busy(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until);
}

describe('handshake pacer', () => {
  it('runs a burst a budget per turn of the event loop, so a timer due meanwhile runs before the burst is done', async () => {
    const pacer = new HandshakePacer(5);
    const done: number[] = [];
    for (let i = 0; i < 100; i++) pacer.enqueue('198.51.100.1', () => (busy(1), done.push(i)));
    assert.equal(pacer.waiting, 100, 'nothing runs in the turn that enqueues');
    // Due in the next turn: unpaced, the 100 ms burst would run first.
    const seenByTimer = await new Promise<number>((resolve) => setTimeout(() => resolve(done.length), 1));
    assert.ok(seenByTimer < 50, `the timer ran after ${seenByTimer} of 100 handshakes`);
    while (pacer.waiting > 0) await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(
      done,
      Array.from({ length: 100 }, (_, i) => i),
      'every one ran, in arrival order',
    );
  });

  it('takes the waiting handshakes from their addresses in turn: a new client does not wait behind a flood from one address', async () => {
    const pacer = new HandshakePacer(5);
    const order: string[] = [];
    for (let i = 0; i < 200; i++) pacer.enqueue('203.0.113.1', () => order.push(`flood ${i}`));
    for (let i = 0; i < 3; i++) pacer.enqueue(`203.0.113.${2 + i}`, () => order.push(`other ${i}`));
    pacer.enqueue('192.0.2.7', () => order.push('client'));
    while (pacer.waiting > 0) await new Promise((resolve) => setImmediate(resolve));
    assert.equal(order.length, 204);
    assert.deepEqual(order.slice(0, 5), ['flood 0', 'other 0', 'other 1', 'other 2', 'client']);
    const flood = order.filter((o) => o.startsWith('flood'));
    assert.deepEqual(
      flood,
      Array.from({ length: 200 }, (_, i) => `flood ${i}`),
      'one address: arrival order',
    );
  });

  it('runs at least one per turn however long each takes, and the rest after one throws', async () => {
    const pacer = new HandshakePacer(0);
    const done: number[] = [];
    const uncaught: unknown[] = [];
    const listeners = process.listeners('uncaughtException');
    process.removeAllListeners('uncaughtException');
    process.on('uncaughtException', (error) => uncaught.push(error));
    try {
      pacer.enqueue('a', () => done.push(0));
      pacer.enqueue('a', () => {
        throw new Error('boom');
      });
      pacer.enqueue('a', () => done.push(2));
      for (let turn = 0; turn < 5 && pacer.waiting > 0; turn++) await new Promise((resolve) => setImmediate(resolve));
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      process.removeAllListeners('uncaughtException');
      for (const listener of listeners) process.on('uncaughtException', listener);
    }
    assert.deepEqual(done, [0, 2]);
    assert.equal(uncaught.length, 1);
    assert.equal(pacer.waiting, 0);
  });
});
