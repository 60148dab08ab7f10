import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startHarness, storeKinds, type Harness } from '../support/gateway-harness.js';
import { startMockOpenAI, type MockUpstream } from '../support/mock-upstreams/index.js';
import { sseData, streamedText, waitFor } from '../support/chat-kit.js';
import { steadyLoad, type SteadyLoad } from '../support/steady-load.js';

const PRICING = { input_per_mtok: 1, output_per_mtok: 1 };
const SLOW_CHUNKS = Array.from({ length: 12 }, (_, i) => `piece${i} `);

function configWith(mock: MockUpstream, keyFile: string, models: string[]) {
  return {
    providers: [{ id: 'mock', kind: 'openai', base_url: mock.baseUrl, api_key_file: keyFile }],
    models: models.map((id) => ({ id: `mock/${id}`, providers: [{ provider: 'mock', model: id }], pricing: PRICING })),
  };
}

const keyOf = (mock: MockUpstream, index: number) => mock.requests[index]?.headers.authorization;

/** Clients sending chat completions (half streamed) to `model` with `key`, back to back. */
function chatLoad(h: Harness, key: string, model = 'mock/m1'): SteadyLoad {
  return steadyLoad(4, async (worker, call) => {
    const stream = (worker + call) % 2 === 0;
    const answer = await h.gateway('POST', '/v1/chat/completions', {
      token: key,
      body: { model, messages: [{ role: 'user', content: `hello ${worker}` }], stream },
    });
    if (answer.status !== 200) throw new Error(`status ${answer.status}: ${answer.text.slice(0, 300)}`);
    if (stream && !answer.text.includes('[DONE]')) throw new Error('a stream ended without [DONE]');
  });
}

for (const kind of storeKinds()) {
  describe(`catalogue and provider-key reload (${kind})`, () => {
    let dir: string;
    let mock: MockUpstream;
    let h: Harness;
    const keyFile = () => join(dir, 'mock.key');
    const configFile = () => join(dir, 'gateway.json');

    before(async () => {
      dir = mkdtempSync(join(tmpdir(), 'config-reload-'));
      mock = await startMockOpenAI();
      mock.setScenario((request) =>
        request.body?.messages?.[0]?.content === 'slow' ? { textChunks: SLOW_CHUNKS, chunkDelayMs: 80 } : {},
      );
      writeFileSync(keyFile(), 'sk-one\n');
      writeFileSync(configFile(), JSON.stringify(configWith(mock, keyFile(), ['m1'])));
      h = await startHarness({
        store: kind,
        dataDir: join(dir, 'a'),
        env: { GATEWAY_CONFIG: configFile(), GATEWAY_RELOAD_POLL_MS: '100' },
      });
    });

    after(async () => {
      await h?.stop();
      await mock?.close();
      rmSync(dir, { recursive: true, force: true });
    });

    it('swaps the catalogue and the provider key on the console action while clients keep calling; a stream in flight finishes on its old key', async () => {
      const org = await h.organization();
      const { key } = await h.createKey(org);
      const load = chatLoad(h, key);
      let slow: Promise<{ status: number; text: string }> | undefined;
      try {
        await load.more(20);
        assert.ok(mock.requests.every((_, i) => keyOf(mock, i) === 'Bearer sk-one'));
        slow = h.gateway('POST', '/v1/chat/completions', {
          token: key,
          body: { model: 'mock/m1', messages: [{ role: 'user', content: 'slow' }], stream: true },
        });
        await waitFor(() => mock.requests.some((r) => r.body?.messages?.[0]?.content === 'slow'));

        writeFileSync(keyFile(), 'sk-two\n');
        writeFileSync(configFile(), JSON.stringify(configWith(mock, keyFile(), ['m1', 'm2'])));
        const reloaded = await h.console('POST', '/v1/admin/reload', { token: org.token });
        assert.equal(reloaded.status, 200, reloaded.text);
        assert.equal(reloaded.json.object, 'reload');
        assert.equal(reloaded.json.config.result, 'reloaded');
        assert.equal(reloaded.json.keyring.result, 'reloaded');
        assert.ok(reloaded.json.generation >= 1);
        const firstAfter = mock.requests.length;
        await load.more(20);
        const later = mock.requests.slice(firstAfter + 8).map((r) => r.headers.authorization);
        assert.ok(later.length >= 8);
        assert.deepEqual(
          new Set(later),
          new Set(['Bearer sk-two']),
          'every request started after the reload uses the new key',
        );

        const models = await h.gateway('GET', '/v1/models', { token: key });
        assert.ok(
          models.json.data.some((m: { id: string }) => m.id === 'mock/m2'),
          models.text,
        );
        const m2 = await h.gateway('POST', '/v1/chat/completions', {
          token: key,
          body: { model: 'mock/m2', messages: [{ role: 'user', content: 'new model' }] },
        });
        assert.equal(m2.status, 200, m2.text);
        assert.ok(mock.requests.some((r) => r.body?.model === 'm2' && r.body.messages[0].content === 'new model'));

        const slowAnswer = await slow;
        assert.equal(slowAnswer.status, 200);
        assert.equal(streamedText(sseData(slowAnswer.text)), SLOW_CHUNKS.join(''));
        const slowRequest = mock.requests.find((r) => r.body?.messages?.[0]?.content === 'slow');
        assert.equal(slowRequest?.headers.authorization, 'Bearer sk-one');
      } finally {
        await load.stop();
        await slow?.catch(() => undefined);
      }
      assert.deepEqual(load.failures, []);
    });

    it('refuses a bad config file with a clear 422, keeps the previous catalogue and key, and answers 403 to a non-admin token', async () => {
      const org = await h.organization();
      const writer = await h.organization(undefined, 'write');
      const { key } = await h.createKey(org);
      const load = chatLoad(h, key, 'mock/m2');
      try {
        await load.more(10);
        writeFileSync(configFile(), '{"providers": [');
        const refused = await h.console('POST', '/v1/admin/reload', { token: org.token });
        assert.equal(refused.status, 422, refused.text);
        assert.equal(refused.json.error, 'Unprocessable Entity');
        assert.match(refused.json.message, /GATEWAY_CONFIG: .*gateway\.json is not valid JSON/);
        assert.match(refused.json.message, /asked of no other instance/);

        writeFileSync(
          configFile(),
          JSON.stringify({
            models: [{ id: 'mock/m3', providers: [{ provider: 'nope', model: 'x' }], pricing: PRICING }],
          }),
        );
        const unknownProvider = await h.console('POST', '/v1/admin/reload', { token: org.token });
        assert.equal(unknownProvider.status, 422);
        assert.match(unknownProvider.json.message, /names provider "nope", which is not configured/);

        const forbidden = await h.console('POST', '/v1/admin/reload', { token: writer.token });
        assert.equal(forbidden.status, 403);
        assert.match(forbidden.json.message, /Reloading the gateway needs an admin token/);

        const requestsBefore = mock.requests.length;
        await load.more(10);
        assert.ok(mock.requests.slice(requestsBefore).every((r) => r.headers.authorization === 'Bearer sk-two'));
      } finally {
        await load.stop();
        writeFileSync(configFile(), JSON.stringify(configWith(mock, keyFile(), ['m1', 'm2'])));
      }
      assert.deepEqual(load.failures, []);
    });

    if (kind === 'postgres')
      it('reaches another instance of the same store: it reloads within its poll interval', async (t) => {
        const other = await startHarness({
          store: 'postgres',
          schema: h.schema,
          dataDir: join(dir, 'b'),
          env: { GATEWAY_CONFIG: configFile(), GATEWAY_RELOAD_POLL_MS: '100' },
        });
        try {
          const org = await h.organization();
          const { key } = await h.createKey(org);
          // Calls go to the other instance only, so what the mock sees is what it uses.
          const load = chatLoad(other, key);
          try {
            await load.more(10);
            writeFileSync(keyFile(), 'sk-three\n');
            const asked = performance.now();
            const reloaded = await h.console('POST', '/v1/admin/reload', { token: org.token });
            assert.equal(reloaded.status, 200, reloaded.text);
            const since = mock.requests.length;
            await waitFor(() => mock.requests.slice(since).some((r) => r.headers.authorization === 'Bearer sk-three'), {
              timeoutMs: 3_000,
              what: 'the other instance to use the new key',
            });
            t.diagnostic(
              `the other instance used the new key ${Math.round(performance.now() - asked)} ms after the console action (polling every 100 ms)`,
            );
            await load.more(10);
            const tail = mock.requests.slice(-4).map((r) => r.headers.authorization);
            assert.deepEqual(new Set(tail), new Set(['Bearer sk-three']));
          } finally {
            await load.stop();
          }
          assert.deepEqual(load.failures, []);
        } finally {
          await other.stop();
        }
      });
  });
}
