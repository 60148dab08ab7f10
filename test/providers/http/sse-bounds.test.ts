import assert from 'node:assert/strict';
import { describe, it, afterEach } from 'node:test';
import { SseDecoder } from '../../../src/providers/http/read-sse.js';
import {
  BufferAccount,
  bufferedUpstreamBytes,
  configureUpstreamLimits,
  FREE_BYTES_PER_ACCOUNT,
} from '../../../src/providers/bounds/index.js';
import { UPSTREAM_LIMIT_DEFAULTS, readUpstreamLimits } from '../../../src/config/upstream-limits-settings.js';
import { UpstreamError } from '../../../src/providers/types.js';

/**
 * The SSE decoder's bounds (issue 27, row 3), chunk by chunk: an unended line and an unended
 * event fail at their limit (to a chunk), what is pending is charged to the account, and lines
 * and events within the limits parse as before, however long the stream.
 */
const KIB = 1024;
const bytes = (text: string) => Buffer.from(text, 'utf8');

function oversized(what: RegExp) {
  return (error: unknown) =>
    error instanceof UpstreamError && error.details.kind === 'oversized' && what.test(error.message);
}

describe('SSE decoder bounds', () => {
  afterEach(() => configureUpstreamLimits(UPSTREAM_LIMIT_DEFAULTS));

  it('a line that never ends fails once it passes the line limit, not before', () => {
    configureUpstreamLimits({ ...UPSTREAM_LIMIT_DEFAULTS, sseLineBytes: 64 * KIB, sseEventBytes: 1024 * KIB });
    const decoder = new SseDecoder();
    const piece = bytes('x'.repeat(16 * KIB));
    decoder.push(bytes('data: '));
    for (let i = 0; i < 3; i++) assert.deepEqual(decoder.push(piece), []);
    assert.throws(() => decoder.push(piece), oversized(/SSE line exceeded the gateway's limit of 65536 bytes/));
  });

  it('an event of many short lines and no blank line fails at the event limit', () => {
    configureUpstreamLimits({ ...UPSTREAM_LIMIT_DEFAULTS, sseLineBytes: 4 * KIB, sseEventBytes: 64 * KIB });
    const decoder = new SseDecoder();
    const lines = bytes(`data: ${'y'.repeat(1000)}\n`.repeat(17));
    for (let i = 0; i < 3; i++) assert.deepEqual(decoder.push(lines), []);
    assert.throws(() => decoder.push(lines), oversized(/SSE event exceeded/));
  });

  it('events each under the limits pass however many there are, and a line split across chunks still parses', () => {
    configureUpstreamLimits({ ...UPSTREAM_LIMIT_DEFAULTS, sseLineBytes: 4 * KIB, sseEventBytes: 8 * KIB });
    const decoder = new SseDecoder();
    const event = `data: ${'z'.repeat(3000)}\n\n`;
    let count = 0;
    for (let i = 0; i < 200; i++) count += decoder.push(bytes(event)).length;
    assert.equal(count, 200);
    const split = bytes(`data: ${'é'.repeat(1500)}\n\n`);
    assert.deepEqual(decoder.push(split.subarray(0, 1001)), []);
    assert.deepEqual(decoder.push(split.subarray(1001)), [{ data: 'é'.repeat(1500) }]);
    assert.deepEqual(decoder.end(), []);
  });

  it('what an unended event holds is charged to its account beyond the free allowance, and released', () => {
    configureUpstreamLimits({ ...UPSTREAM_LIMIT_DEFAULTS, sseLineBytes: 1024 * KIB, sseEventBytes: 1024 * KIB });
    const account = new BufferAccount();
    const decoder = new SseDecoder(account);
    decoder.push(bytes('data: '));
    decoder.push(bytes('x'.repeat(FREE_BYTES_PER_ACCOUNT + 100 * KIB)));
    assert.equal(bufferedUpstreamBytes(), 6 + 100 * KIB);
    assert.deepEqual(decoder.push(bytes('\n\n')).length, 1);
    assert.equal(bufferedUpstreamBytes(), 0, 'the event ended: nothing pending');
    decoder.push(bytes('x'.repeat(FREE_BYTES_PER_ACCOUNT + 1)));
    account.release();
    assert.equal(bufferedUpstreamBytes(), 0);
  });

  it('past the process budget an account refuses to grow, and the others keep theirs', () => {
    configureUpstreamLimits({ ...UPSTREAM_LIMIT_DEFAULTS, bufferedBytes: 256 * KIB });
    const first = new BufferAccount();
    const second = new BufferAccount();
    first.hold(FREE_BYTES_PER_ACCOUNT + 200 * KIB);
    assert.throws(
      () => second.hold(FREE_BYTES_PER_ACCOUNT + 100 * KIB),
      (error: unknown) => {
        return error instanceof UpstreamError && /holds its limit of 262144 bytes/.test(error.message);
      },
    );
    second.hold(FREE_BYTES_PER_ACCOUNT + 56 * KIB);
    assert.equal(bufferedUpstreamBytes(), 256 * KIB);
    first.release();
    second.release();
    assert.equal(bufferedUpstreamBytes(), 0);
    // A released account holds nothing on the budget, whatever it is told afterwards.
    first.hold(1024 * KIB);
    assert.equal(bufferedUpstreamBytes(), 0);
  });

  it('the limits are read from the environment and a bad value stops the start', () => {
    assert.deepEqual(readUpstreamLimits({}), UPSTREAM_LIMIT_DEFAULTS);
    assert.equal(readUpstreamLimits({ GATEWAY_UPSTREAM_SSE_LINE_BYTES: '2048' }).sseLineBytes, 2048);
    assert.throws(() => readUpstreamLimits({ GATEWAY_UPSTREAM_JSON_BYTES: '12' }), /GATEWAY_UPSTREAM_JSON_BYTES/);
  });
});
