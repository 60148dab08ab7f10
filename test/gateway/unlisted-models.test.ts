import { describe, it, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { startHarness, type Harness } from '../support/gateway-harness.js';
import { startMockAnthropic, startMockOpenAI, type MockUpstream } from '../support/mock-upstreams/index.js';
import { assertGatewayError, usageRowOf } from '../support/chat-kit.js';
import { DEFAULT_MODELS } from '../../src/catalogue/default-catalogue.js';

/**
 * A model name newer than the catalogue (what Claude Code and Codex send the day a family
 * ships) is forwarded to its configured provider instead of a 404, priced at that provider's
 * highest known prices and flagged in its usage row (issue 18, blocker 3).
 */
const anthropicMax = (read: (p: (typeof DEFAULT_MODELS)[number]['pricing']) => number) =>
  Math.max(
    ...DEFAULT_MODELS.filter((m) => m.id.startsWith('anthropic/') && m.active !== false).map((m) => read(m.pricing)),
  );

describe('model names the catalogue does not list', () => {
  let h: Harness;
  let anthropic: MockUpstream;
  let openai: MockUpstream;
  let org: { id: string; token: string };
  let key: { id: string; key: string };

  before(async () => {
    anthropic = await startMockAnthropic({ apiKey: 'sk-ant' });
    openai = await startMockOpenAI({ apiKey: 'sk-oai' });
    h = await startHarness({
      config: {
        providers: [
          { id: 'anthropic', kind: 'anthropic', base_url: anthropic.baseUrl, api_key_env: 'MOCK_ANTHROPIC_KEY' },
          { id: 'openai', kind: 'openai', base_url: openai.baseUrl, api_key_env: 'MOCK_OPENAI_KEY' },
          // A provider without its key: its unlisted names stay 404.
          { id: 'google', kind: 'gemini', base_url: openai.baseUrl, api_key_env: 'UNSET_GEMINI_KEY_FOR_TEST' },
        ],
      },
      env: { MOCK_ANTHROPIC_KEY: 'sk-ant', MOCK_OPENAI_KEY: 'sk-oai' },
    });
    org = await h.organization();
    key = await h.createKey(org);
  });
  after(async () => {
    await h.stop();
    await Promise.all([anthropic.close(), openai.close()]);
  });
  beforeEach(() => {
    anthropic.reset();
    openai.reset();
  });

  const messages = (model: string, token = key.key) =>
    h.gateway('POST', '/v1/messages', {
      headers: { 'x-api-key': token, 'anthropic-version': '2023-06-01' },
      body: { model, max_tokens: 32, messages: [{ role: 'user', content: 'Hi' }] },
    });

  it('/v1/messages: a new Claude name goes to Anthropic as sent; the row is flagged and priced at the highest Claude prices', async () => {
    anthropic.setScenario({ text: 'hi', usage: { inputTokens: 1_000, outputTokens: 100, cachedInputTokens: 200 } });
    const result = await messages('claude-opus-9-1');
    assert.equal(result.status, 200, result.text);
    assert.equal(result.json.model, 'claude-opus-9-1');
    assert.equal(anthropic.lastRequest()!.body.model, 'claude-opus-9-1');
    const row = await usageRowOf(h.running.store, String(result.headers['x-request-id']));
    assert.equal(row.model, 'anthropic/claude-opus-9-1');
    assert.equal(row.upstream_model, 'claude-opus-9-1');
    assert.equal(Number(row.model_unlisted), 1);
    const expected =
      800 * anthropicMax((p) => p.input_per_mtok) +
      200 * anthropicMax((p) => p.cached_input_per_mtok ?? p.input_per_mtok) +
      100 * anthropicMax((p) => p.output_per_mtok);
    assert.equal(Number(row.cost_micro_usd), Math.round(expected));
    assert.ok(Number(row.cost_micro_usd) > 0);
  });

  it('metrics label unlisted models by provider only, so client-chosen names cannot grow the series', async () => {
    const names = ['claude-opus-9-2', 'claude-opus-9-3'];
    for (const name of names) assert.equal((await messages(name)).status, 200);
    const metrics = await h.console('GET', '/metrics'); // served on the console listener
    assert.equal(metrics.status, 200);
    for (const name of names) assert.ok(!metrics.text.includes(name), `${name} became a metrics label`);
    assert.match(metrics.text, /model="anthropic\/unlisted"/);
  });

  it('a listed model is not flagged', async () => {
    const result = await messages('claude-haiku-4-5-20251001');
    assert.equal(result.status, 200, result.text);
    const row = await usageRowOf(h.running.store, String(result.headers['x-request-id']));
    assert.equal(row.model, 'anthropic/claude-haiku-4-5');
    assert.equal(Number(row.model_unlisted), 0);
  });

  it('/v1/responses and /v1/chat/completions forward new OpenAI names the same way', async () => {
    const responses = await h.gateway('POST', '/v1/responses', {
      token: key.key,
      body: { model: 'gpt-7-sol', input: 'Hi' },
    });
    assert.equal(responses.status, 200, responses.text);
    assert.equal(openai.lastRequest()!.body.model, 'gpt-7-sol');
    const chat = await h.gateway('POST', '/v1/chat/completions', {
      token: key.key,
      body: { model: 'openai/o5-mini', messages: [{ role: 'user', content: 'Hi' }] },
    });
    assert.equal(chat.status, 200, chat.text);
    assert.equal(openai.lastRequest()!.body.model, 'o5-mini');
    const row = await usageRowOf(h.running.store, String(chat.headers['x-request-id']));
    assert.equal(Number(row.model_unlisted), 1);
  });

  it('a key with a ceiling pays for an unlisted model at those prices: its output is capped to what they allow', async () => {
    const capped = await h.createKey(org, { name: 'capped', max_usage: 1 });
    // $1 at the highest Claude output price ($50/M) pays for under 20,000 output tokens.
    const result = await h.gateway('POST', '/v1/messages', {
      headers: { 'x-api-key': capped.key, 'anthropic-version': '2023-06-01' },
      body: { model: 'claude-opus-9-1', max_tokens: 64_000, messages: [{ role: 'user', content: 'Hi' }] },
    });
    assert.equal(result.status, 200, result.text);
    const sent = anthropic.lastRequest()!.body.max_tokens;
    assert.ok(sent < 20_000, `upstream max_tokens ${sent}`);
  });

  it('typos, names of another provider, providers without a key and restricted keys are refused as before', async () => {
    for (const [model, status] of [
      ['sonet', 404],
      ['gpt-7', 404], // /v1/messages reads a bare name as Anthropic's
      ['google/gemini-9-pro', 404],
    ] as const) {
      const result = await messages(model);
      assert.equal(result.status, status, `${model}: ${result.text}`);
      assert.equal(result.json.error.type, 'not_found_error');
    }
    const restricted = await h.createKey(org, { name: 'restricted', models: ['anthropic/claude-haiku-4-5'] });
    const refused = await messages('claude-opus-9-1', restricted.key);
    assert.equal(refused.status, 403);
    assertGatewayError(
      await h.gateway('POST', '/v1/chat/completions', {
        token: key.key,
        body: { model: 'openai/no-such-model', messages: [{ role: 'user', content: 'Hi' }] },
      }),
      { status: 400, code: 'model_not_found', param: 'model' },
    );
    assert.equal(anthropic.requests.length + openai.requests.length, 0);
  });
});
