import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServedGateway, type ServedGateway } from '../support/served-gateway.js';
import { startHostileUpstream, type HostileKind, type HostileUpstream } from '../support/hostile-upstream.js';
import { startMockOpenAI, type MockUpstream } from '../support/mock-upstreams/index.js';
import { PRICING, sseData, streamedText } from '../support/chat-kit.js';

/**
 * Issue 27, row 3, as an operator runs it: the built `bin/gateway serve` with its default
 * upstream bounds, four clients at once on each of three hostile upstreams that would each send
 * 256 MiB (a line without end, deltas without end, a JSON answer without end). Before the bounds
 * the process held all of it (one 100 MB line peaked at 745 MB; 1.5 GB killed it). Now each
 * request fails with its error, and the process's peak resident memory (VmHWM, read once at the
 * end: no timing involved) stays far below what it would have held. The 512 MiB bound is
 * generous: bench/attack/hostile-streams.ts measures the same at 8 streams of each of six kinds.
 */
const MIB = 1024 * 1024;
const HOSTILE_BYTES = 256 * MIB;
const CLIENTS_PER_KIND = 4;
const PEAK_RSS_BOUND = 512 * MIB;
const KINDS: readonly HostileKind[] = ['no-newline', 'endless-deltas', 'huge-json'];

describe('the served gateway under hostile upstreams keeps its memory bounded (issue 27, row 3)', () => {
  let gateway: ServedGateway;
  let healthy: MockUpstream;
  const upstreams = new Map<HostileKind, HostileUpstream>();

  before(
    async () => {
      healthy = await startMockOpenAI();
      for (const kind of KINDS) upstreams.set(kind, await startHostileUpstream(kind, { maxBytes: HOSTILE_BYTES }));
      gateway = await startServedGateway({
        env: { MOCK_KEY: 'sk-mock' },
        config: {
          providers: [
            { id: 'healthy', kind: 'openai', base_url: healthy.baseUrl, api_key_env: 'MOCK_KEY' },
            ...KINDS.map((kind) => ({
              id: kind,
              kind: 'openai',
              base_url: upstreams.get(kind)!.baseUrl,
              api_key_env: 'MOCK_KEY',
            })),
          ],
          models: [
            { id: 'openai/healthy', providers: [{ provider: 'healthy', model: 'gpt-4o-mini' }], pricing: PRICING },
            ...KINDS.map((kind) => ({
              id: `openai/${kind}`,
              providers: [{ provider: kind, model: 'gpt-hostile' }],
              pricing: PRICING,
            })),
          ],
          retry: { max_attempts: 1, base_delay_ms: 0, max_delay_ms: 0 },
        },
      });
    },
    { timeout: 240_000 },
  );
  after(async () => {
    await gateway?.stop();
    await Promise.all([healthy?.close(), ...[...upstreams.values()].map((u) => u.close())]);
  });

  it(
    'every hostile request fails with its error, the process lives, its peak RSS stays under 512 MiB',
    { timeout: 180_000 },
    async (t) => {
      const base = gateway.serve.urls.gateway;
      const results = await Promise.all(
        KINDS.flatMap((kind) =>
          Array.from({ length: CLIENTS_PER_KIND }, async () => {
            const stream = kind !== 'huge-json';
            const result = await gateway.client.call(`${base}/v1/chat/completions`, 'POST', {
              token: gateway.key,
              body: { model: `openai/${kind}`, stream, messages: [{ role: 'user', content: 'hello' }] },
            });
            return { kind, result };
          }),
        ),
      );
      for (const { kind, result } of results) {
        const error = kind === 'huge-json' ? result.json?.error : sseData(result.text).find((e) => e?.error)?.error;
        assert.ok(error, `${kind}: an error, got ${result.status} ${result.text.slice(0, 200)}`);
        // Its own limit, or the process's budget when the other hostile answers hold it (both refuse).
        assert.match(error.message, /exceeded the gateway's limit|already holds its limit/, kind);
      }
      for (const [kind, upstream] of upstreams) {
        for (const exchange of await upstream.closedExchanges(CLIENTS_PER_KIND))
          assert.ok(exchange.closedEarly && exchange.bytesWritten < HOSTILE_BYTES / 4, `${kind}: closed early`);
      }
      assert.ok(gateway.alive(), 'the gateway process lives');
      const memory = gateway.memory();
      if (memory) {
        t.diagnostic(`peak RSS ${(memory.peak / MIB).toFixed(0)} MiB`);
        assert.ok(memory.peak < PEAK_RSS_BOUND, `peak RSS ${(memory.peak / MIB).toFixed(0)} MiB`);
      }

      healthy.setScenario({ textChunks: ['still ', 'serving'] });
      const after = await gateway.client.call(`${base}/v1/chat/completions`, 'POST', {
        token: gateway.key,
        body: { model: 'openai/healthy', stream: true, messages: [{ role: 'user', content: 'hello' }] },
      });
      assert.equal(streamedText(sseData(after.text)), 'still serving');
    },
  );
});
