import { describe, it, after } from 'node:test';
import assert from 'node:assert/strict';
import { compressConversationRequest, type ConversationRequest } from '../../src/compress/conversation-request.js';
import { cachePricingFor } from '../../src/catalogue/cache-pricing.js';
import { closeOffloadPool, compressConversationOffloaded, offloadSettings } from '../../src/offload/index.js';
import { build, type Dialogue } from '../compress/helpers/build.js';

/** A long session whose every output is new: ~8 MB of tool output for the engine to read. */
function bigSession(turns: number, rows: number): Dialogue {
  return {
    system: 'You are a coding agent.',
    task: 'Find the failing test.',
    turns: Array.from({ length: turns }, (_, i) => ({
      assistant: `Step ${i}.`,
      calls: [
        {
          id: `call_${i}`,
          name: 'bash',
          args: { command: `python check_${i}.py` },
          output: Array.from(
            { length: rows },
            (_, k) => `check ${i} row ${k}: ${(i * 7919 + k * 104729) % 1_000_003}`,
          ).join('\n'),
        },
      ],
    })),
  };
}

const request = (runEngine?: ConversationRequest['runEngine']): ConversationRequest => ({
  apiKeyId: 'key',
  sessionId: undefined,
  compress: true,
  bundle: undefined,
  provider: { kind: 'anthropic', id: 'anthropic', baseUrl: undefined },
  pricing: cachePricingFor('anthropic', {
    input_per_mtok: 3,
    output_per_mtok: 15,
    cached_input_per_mtok: 0.3,
    cache_write_per_mtok: 3.75,
  }),
  manageCache: true,
  addCacheHints: true,
  store: undefined,
  now: 1_700_000_000_000,
  ...(runEngine ? { runEngine } : {}),
});

/** The longest gap between timer ticks while `work` runs: how long the event loop was held. */
async function longestStall(work: () => Promise<unknown>): Promise<{ stall: number; elapsed: number; value: unknown }> {
  let last = performance.now();
  let stall = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    stall = Math.max(stall, now - last);
    last = now;
  }, 1);
  const started = performance.now();
  const value = await work();
  const elapsed = performance.now() - started;
  clearInterval(timer);
  stall = Math.max(stall, performance.now() - last);
  return { stall, elapsed, value };
}

describe('conversation-aware compression of big bodies on a pool thread', () => {
  after(() => closeOffloadPool());

  it('a body over GATEWAY_OFFLOAD_COMPRESS_MIN_CHARS compresses on a thread, with the same body and decisions as inline, while the event loop keeps turning', async (t) => {
    const body = build(bigSession(400, 1000), 'chat');
    assert.ok(JSON.stringify(body).length > 4 * offloadSettings().compressMinChars, 'well over the threshold');
    // The thread loads its vocabulary once; a first small call keeps that out of the measurement.
    await compressConversationOffloaded(build(bigSession(2, 100_000 / 30), 'chat'), {});

    const inline = await longestStall(() => compressConversationRequest(body, request()));
    const offloaded = await longestStall(() =>
      compressConversationRequest(body, request(compressConversationOffloaded)),
    );
    const a = inline.value as Awaited<ReturnType<typeof compressConversationRequest>>;
    const b = offloaded.value as Awaited<ReturnType<typeof compressConversationRequest>>;
    assert.deepEqual(b.body, a.body);
    assert.deepEqual(b.outcome, a.outcome);
    assert.equal(b.compression?.compressed_input_tokens, a.compression?.compressed_input_tokens);
    t.diagnostic(
      `event loop held ${offloaded.stall.toFixed(0)} ms offloaded, ${inline.stall.toFixed(0)} ms inline (${inline.elapsed.toFixed(0)} ms)`,
    );
    assert.ok(
      offloaded.stall < inline.stall / 2,
      `event loop held ${offloaded.stall.toFixed(0)} ms offloaded vs ${inline.stall.toFixed(0)} ms inline`,
    );
  });

  it('a body under the threshold runs inline (no thread trip for ordinary agent requests)', async () => {
    const small = build(bigSession(5, 20), 'chat');
    const { stall, value } = await longestStall(() =>
      compressConversationRequest(small, request(compressConversationOffloaded)),
    );
    assert.ok((value as { compression?: unknown }).compression);
    assert.ok(stall >= 0);
  });
});
