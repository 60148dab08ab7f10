import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startHarness, type Harness } from '../support/gateway-harness.js';
import { startMockAnthropic, startMockOpenAI, type MockUpstream } from '../support/mock-upstreams/index.js';
import { PRICING, sseData, streamedText } from '../support/chat-kit.js';

/**
 * Issue 16, acceptance: "nothing legitimate breaks: long streams (10 min with chunks every 30 s)".
 * The connection deadlines added against slowloris (handshake, headers, body rate, keep-alive
 * idle) must not cut a response in progress, and the upstream's idle deadline (between_chunks_ms,
 * 120 s by default) is longer than a 30 s gap.
 *
 * Time runs 60 times faster here: a chunk every 500 ms (30 s) for 20 gaps (10 min), the upstream
 * deadlines at their defaults / 60 (between chunks 2 s, first byte 10 s), and the listener
 * deadlines a silent response could trip set far below the stream's length (keep-alive idle and
 * body below the gap itself, headers at two gaps), so that the stream outlasts each of them many
 * times over. A control stream silent for longer
 * than between_chunks_ms is cut: the scaled deadline is live.
 */
const SCALE = 60;
const GAP_MS = 30_000 / SCALE;
const GAPS = 600_000 / 30_000;
const TIMEOUTS = { connect_ms: 10_000, first_byte_ms: 600_000 / SCALE, between_chunks_ms: 120_000 / SCALE };

describe('long streams with a chunk every 30 s (scaled 60×) are not cut by any deadline', () => {
  let h: Harness;
  let openai: MockUpstream;
  let anthropic: MockUpstream;
  let key: string;
  before(async () => {
    [openai, anthropic] = await Promise.all([startMockOpenAI(), startMockAnthropic()]);
    h = await startHarness({
      env: {
        MOCK_KEY: 'sk-mock',
        // A deadline that applied to a response in progress would cut these streams.
        GATEWAY_KEEP_ALIVE_TIMEOUT_MS: String(GAP_MS / 2),
        GATEWAY_HEADERS_TIMEOUT_MS: String(GAP_MS * 2),
        GATEWAY_BODY_TIMEOUT_MS: String(GAP_MS / 2),
      },
      config: {
        providers: [
          { id: 'slow-openai', kind: 'openai', base_url: openai.baseUrl, api_key_env: 'MOCK_KEY' },
          { id: 'slow-anthropic', kind: 'anthropic', base_url: anthropic.baseUrl, api_key_env: 'MOCK_KEY' },
        ],
        models: [
          { id: 'test/slow', providers: [{ provider: 'slow-openai', model: 'gpt-4o-mini' }], pricing: PRICING },
          {
            id: 'anthropic/slow',
            providers: [{ provider: 'slow-anthropic', model: 'claude-slow' }],
            pricing: PRICING,
          },
        ],
        timeouts: TIMEOUTS,
        retry: { max_attempts: 1, base_delay_ms: 0, max_delay_ms: 0 },
      },
    });
    key = (await h.createKey(await h.organization())).key;
  });
  after(async () => {
    await h.stop();
    await Promise.all([openai.close(), anthropic.close()]);
  });

  const pieces = Array.from({ length: GAPS + 1 }, (_, i) => `chunk${i} `);

  it('a chat completions stream and a native Messages stream, side by side, arrive whole', async () => {
    openai.setScenario({ textChunks: pieces, chunkDelayMs: GAP_MS });
    anthropic.setScenario({ textChunks: pieces, chunkDelayMs: GAP_MS });
    const started = performance.now();
    const [chat, messages] = await Promise.all([
      h.gateway('POST', '/v1/chat/completions', {
        token: key,
        body: { model: 'test/slow', stream: true, messages: [{ role: 'user', content: 'take ten minutes' }] },
      }),
      h.gateway('POST', '/v1/messages', {
        token: key,
        body: {
          model: 'anthropic/slow',
          max_tokens: 100,
          stream: true,
          messages: [{ role: 'user', content: 'take ten minutes' }],
        },
      }),
    ]);
    const elapsedMs = performance.now() - started;
    assert.ok(elapsedMs >= GAP_MS * GAPS, `the streams lasted ${elapsedMs} ms: the mocks did not pause`);

    assert.equal(chat.status, 200);
    const chatEvents = sseData(chat.text);
    assert.equal(streamedText(chatEvents), pieces.join(''));
    assert.equal(chatEvents.at(-1), '[DONE]');

    assert.equal(messages.status, 200);
    const deltas = messages.text
      .split('\n')
      .filter((line) => line.startsWith('data: '))
      .map((line) => JSON.parse(line.slice(6)))
      .filter((event) => event.type === 'content_block_delta')
      .map((event) => event.delta.text)
      .join('');
    assert.equal(deltas, pieces.join(''));
    assert.match(messages.text, /event: message_stop/);
  });

  it('control: a stream silent for longer than between_chunks_ms is cut with provider_timeout', async () => {
    openai.setScenario({
      textChunks: ['before ', 'after'],
      hangAfterEvent: 1,
      hangBetweenChunksMs: TIMEOUTS.between_chunks_ms * 2,
    });
    const result = await h.gateway('POST', '/v1/chat/completions', {
      token: key,
      body: { model: 'test/slow', stream: true, messages: [{ role: 'user', content: 'go quiet' }] },
    });
    assert.equal(result.status, 200);
    assert.equal(sseData(result.text).at(-1).error.code, 'provider_timeout');
  });
});
