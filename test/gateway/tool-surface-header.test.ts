import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startHarness, type Harness } from '../support/gateway-harness.js';
import { startMockOpenAI, type MockUpstream } from '../support/mock-upstreams/index.js';
import { PRICING } from '../support/chat-kit.js';

/**
 * X-Gateway-Tool-Surface (src/compress/tool-surface.ts): `on` / `off` on the chat path and on
 * /v1/compress, any other value a 400 naming the header; the header never reaches the upstream.
 * (Which tools a conversation drops is tested with the engine and the store:
 * test/compress/tool-surface.test.ts, test/store/compression-conversations.test.ts.)
 */
describe('X-Gateway-Tool-Surface', () => {
  let h: Harness;
  let openai: MockUpstream;
  let key: string;

  before(async () => {
    openai = await startMockOpenAI();
    h = await startHarness({
      config: {
        providers: [{ id: 'mock-openai', kind: 'openai', base_url: openai.baseUrl, api_key_env: 'MOCK_KEY' }],
        models: [{ id: 'test/gpt', providers: [{ provider: 'mock-openai', model: 'gpt' }], pricing: PRICING }],
      },
      env: { MOCK_KEY: 'sk-mock' },
    });
    const org = await h.organization();
    key = (await h.createKey(org, { name: 'tools' })).key;
  });
  after(async () => {
    await h?.stop();
    await openai.close();
  });

  const body = {
    model: 'test/gpt',
    messages: [{ role: 'user', content: 'List the files.' }],
    tools: [
      { type: 'function', function: { name: 'Bash', parameters: { type: 'object', properties: {} } } },
      { type: 'function', function: { name: 'mcp__github__create_issue', parameters: { type: 'object' } } },
    ],
  };

  it('off keeps every tool on the chat path and on /v1/compress; the header stays at the gateway', async () => {
    const chat = await h.gateway('POST', '/v1/chat/completions', {
      token: key,
      headers: { 'x-gateway-tool-surface': 'off', 'x-gateway-compression-model': 'claude' },
      body,
    });
    assert.equal(chat.status, 200, JSON.stringify(chat.json));
    const upstream = openai.lastRequest()!;
    assert.equal((upstream.body as { tools: unknown[] }).tools.length, 2);
    assert.ok(!Object.keys(upstream.headers).some((name) => name.startsWith('x-gateway')));
    const compressed = await h.gateway('POST', '/v1/compress', {
      token: key,
      headers: { 'x-gateway-tool-surface': 'off' },
      body,
    });
    assert.equal(compressed.status, 200, JSON.stringify(compressed.json));
    assert.equal(compressed.json.tools.length, 2);
  });

  it('any other value is a 400 naming the header, on both paths', async () => {
    for (const path of ['/v1/chat/completions', '/v1/compress']) {
      const bad = await h.gateway('POST', path, {
        token: key,
        headers: { 'x-gateway-tool-surface': 'maybe', 'x-gateway-compression-model': 'claude' },
        body,
      });
      assert.equal(bad.status, 400, path);
      assert.equal(bad.json.error.param, 'x-gateway-tool-surface', path);
    }
  });
});
