import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { readSse } from '../../../src/providers/http/read-sse.js';
import { parseRetryAfterMs } from '../../../src/providers/http/retry-after.js';
import { sanitizeMessage } from '../../../src/providers/shared/sanitize.js';
import type { SseEvent } from '../../../src/providers/types.js';

async function parse(chunks: Uint8Array[]): Promise<SseEvent[]> {
  const events: SseEvent[] = [];
  for await (const event of readSse(
    (async function* () {
      yield* chunks;
    })(),
  ))
    events.push(event);
  return events;
}

function splitAt(bytes: Uint8Array, cuts: number[]): Uint8Array[] {
  const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
  const out: Uint8Array[] = [];
  let start = 0;
  for (const point of points) {
    out.push(bytes.subarray(start, point));
    start = point;
  }
  out.push(bytes.subarray(start));
  return out;
}

describe('SSE reading', () => {
  it('yields the same events however the bytes are split (multi-byte characters included)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.string({ unit: 'grapheme', minLength: 1 }), { minLength: 1, maxLength: 5 }),
        fc.array(fc.nat(), { maxLength: 8 }),
        fc.boolean(),
        async (datas, cuts, crlf) => {
          const clean = datas.map((d) => d.replace(/[\r\n]/g, ' '));
          const eol = crlf ? '\r\n' : '\n';
          const text = clean.map((d) => `event: e${eol}data: ${d}${eol}${eol}`).join('');
          const events = await parse(splitAt(new TextEncoder().encode(text), cuts));
          assert.deepEqual(
            events.map((e) => e.data),
            clean,
          );
        },
      ),
      { numRuns: 200 },
    );
  });

  it('joins multiple data lines with a newline', async () => {
    const events = await parse([new TextEncoder().encode('data: {\ndata: "a": 1\ndata: }\n\n')]);
    assert.equal(events[0]?.data, '{\n"a": 1\n}');
  });

  it('keeps the last event when the body ends without a blank line', async () => {
    const events = await parse([new TextEncoder().encode('data: one\n\ndata: two')]);
    assert.deepEqual(
      events.map((e) => e.data),
      ['one', 'two'],
    );
  });

  it('ignores comments', async () => {
    const events = await parse([new TextEncoder().encode(': keep-alive\n\ndata: x\n\n')]);
    assert.deepEqual(
      events.map((e) => e.data),
      ['x'],
    );
  });
});

describe('retry-after parsing', () => {
  it('reads seconds, HTTP dates and retry-after-ms (preferred)', () => {
    assert.equal(parseRetryAfterMs({ 'retry-after': '3' }), 3000);
    assert.equal(parseRetryAfterMs({ 'retry-after': '1.5' }), 1500);
    assert.equal(parseRetryAfterMs({ 'retry-after-ms': '250', 'retry-after': '9' }), 250);
    const now = Date.parse('2025-01-01T00:00:00Z');
    assert.equal(parseRetryAfterMs({ 'retry-after': 'Wed, 01 Jan 2025 00:00:05 GMT' }, now), 5000);
    assert.equal(parseRetryAfterMs({ 'retry-after': 'soon' }), undefined);
    assert.equal(parseRetryAfterMs({}), undefined);
  });
});

describe('error message sanitising', () => {
  it('redacts credentials and truncates to 500 characters', () => {
    const message = sanitizeMessage(
      `bad key sk-proj-abcdef123456 and AIzaSyA1234567890abcdef, Bearer xyz.abc.def123 ${'y'.repeat(900)}`,
      ['my-secret-key'],
    );
    assert.ok(!/sk-proj|AIzaSy|xyz\.abc/.test(message));
    assert.equal(message.length, 500);
    assert.equal(sanitizeMessage('contains my-secret-key here', ['my-secret-key']), 'contains [redacted] here');
  });
});
