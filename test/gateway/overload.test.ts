import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startHarness, type Harness } from '../support/gateway-harness.js';
import { startMockOpenAI, type MockUpstream } from '../support/mock-upstreams/index.js';

describe('per-instance concurrency limit', () => {
  let h: Harness;
  let mock: MockUpstream;
  let key: string;
  before(async () => {
    mock = await startMockOpenAI();
    h = await startHarness({
      env: { GATEWAY_MAX_CONCURRENCY: '2' },
      config: {
        providers: [{ id: 'm', kind: 'openai', base_url: mock.baseUrl }],
        models: [
          {
            id: 'openai/slow',
            providers: [{ provider: 'm', model: 'slow' }],
            pricing: { input_per_mtok: 0, output_per_mtok: 0 },
          },
        ],
      },
    });
    key = (await h.createKey(await h.organization())).key;
  });
  after(async () => {
    await h.stop();
    await mock.close();
  });

  it('answers 503 overloaded with retry-after beyond the limit, and serves again once requests finish', async () => {
    mock.setScenario({ hangBeforeHeadersMs: 400 });
    const body = { model: 'openai/slow', messages: [{ role: 'user', content: 'hi' }] };
    const results = await Promise.all(
      Array.from({ length: 5 }, () => h.gateway('POST', '/v1/chat/completions', { token: key, body })),
    );
    const ok = results.filter((r) => r.status === 200);
    const overloaded = results.filter((r) => r.status === 503);
    assert.equal(ok.length, 2);
    assert.equal(overloaded.length, 3);
    for (const r of overloaded) {
      assert.equal(r.json.error.code, 'overloaded');
      assert.equal(r.json.error.type, 'server_error');
      assert.equal(r.headers['retry-after'], '1');
    }
    mock.setScenario({});
    const again = await h.gateway('POST', '/v1/chat/completions', { token: key, body });
    assert.equal(again.status, 200);
  });

  it("64 KB of request headers get 431 in each surface's envelope (not a dropped connection), and the listener keeps serving", async () => {
    const big = { 'x-padding': 'a'.repeat(64 * 1024) };
    const gateway = await h.gateway('GET', '/v1/models', { token: key, headers: big });
    assert.equal(gateway.status, 431);
    assert.deepEqual(gateway.json, {
      error: {
        message: 'The request headers are larger than 16 KB.',
        type: 'invalid_request_error',
        code: 'request_too_large',
        param: null,
      },
    });
    const consoleAnswer = await h.console('GET', '/v1/organizations', { headers: big });
    assert.equal(consoleAnswer.status, 431);
    assert.equal(consoleAnswer.json.error, 'Request Header Fields Too Large');
    // Many headers that add up past the limit, too.
    const many = Object.fromEntries(Array.from({ length: 400 }, (_, i) => [`x-h${i}`, 'b'.repeat(100)]));
    assert.equal((await h.gateway('GET', '/v1/models', { token: key, headers: many })).status, 431);
    // Just under the limit is fine.
    assert.equal(
      (await h.gateway('GET', '/v1/models', { token: key, headers: { 'x-padding': 'a'.repeat(12 * 1024) } })).status,
      200,
    );
    assert.equal((await h.gateway('GET', '/v1/models', { token: key })).status, 200);
  });
});
