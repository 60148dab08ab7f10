import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startHarness, type Harness } from '../support/gateway-harness.js';
import { startMockAnthropic, type MockUpstream } from '../support/mock-upstreams/index.js';
import { PRICING, header, parseSse, usageRowOf } from '../support/chat-kit.js';
import { registerProvider } from '../../src/providers/registry.js';
import { Catalogue } from '../../src/catalogue/catalogue.js';
import { ConfigError } from '../../src/config/gateway-config.js';
import { ACME_KIND, acmeAdapter } from '../fixtures/providers/acme/index.js';

/**
 * A provider that speaks one native wire format is added by its folder
 * (test/fixtures/providers/acme/), one registration in the registry and its entries in the
 * catalogue (the config), and nothing else: /v1/messages passes a request for its model through
 * to it natively, because its adapter says it accepts Anthropic Messages.
 */

const ACME_MODEL = 'acme/large';

describe('a provider added by its folder, the registry and the catalogue', () => {
  let h: Harness;
  let upstream: MockUpstream;
  let key: string;
  let unregister: () => void;

  before(async () => {
    unregister = registerProvider(acmeAdapter);
    upstream = await startMockAnthropic();
    h = await startHarness({
      config: {
        providers: [{ id: 'acme-1', kind: ACME_KIND, base_url: upstream.baseUrl, api_key_env: 'ACME_KEY' }],
        models: [{ id: ACME_MODEL, providers: [{ provider: 'acme-1', model: 'acme-large' }], pricing: PRICING }],
        retry: { max_attempts: 1, base_delay_ms: 0, max_delay_ms: 0 },
      },
      env: { ACME_KEY: 'sk-acme' },
    });
    const org = await h.organization();
    key = (await h.createKey(org)).key;
  });
  after(async () => {
    await h.stop();
    await upstream.close();
    unregister();
  });

  /** What only the native path keeps: `top_k`, a thinking turn, an unknown member. */
  const messagesBody = (stream: boolean) => ({
    model: ACME_MODEL,
    stream,
    max_tokens: 256,
    top_k: 7,
    acme_member: { kept: true },
    enable_debug: true,
    messages: [
      { role: 'user', content: 'Hello?' },
      {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 'Greet back.', signature: 'sig==' },
          { type: 'text', text: 'Hi.' },
        ],
      },
      { role: 'user', content: 'And again?' },
    ],
  });

  const post = (body: unknown, path = '/v1/messages') =>
    h.gateway('POST', path, { headers: { 'x-api-key': key, 'anthropic-version': '2023-06-01' }, body });

  it('/v1/messages goes to it natively: the client body as sent, its own credential, its answer as it wrote it', async () => {
    upstream.setScenario({ text: 'Hello from Acme.', usage: { inputTokens: 21, outputTokens: 4 } });
    const result = await post(messagesBody(false));
    assert.equal(result.status, 200, result.text);
    assert.deepEqual(result.json.content, [{ type: 'text', text: 'Hello from Acme.' }]);
    assert.equal(result.json.model, ACME_MODEL, 'the model echoes the client');
    assert.equal(result.json.debug.messages_path, 'native');
    assert.equal(header(result, 'x-gateway-provider'), 'acme-1');

    const sent = upstream.lastRequest()!;
    assert.equal(sent.path, '/v1/messages');
    assert.equal(sent.headers.authorization, 'Bearer sk-acme', "Acme's own authentication");
    assert.equal(sent.headers['x-api-key'], undefined);
    assert.equal(sent.body.model, 'acme-large');
    assert.equal(sent.body.top_k, 7);
    assert.deepEqual(sent.body.acme_member, { kept: true });
    assert.equal(sent.body.messages[1].content[0].type, 'thinking');
    assert.equal(sent.body.enable_debug, undefined, 'gateway members removed');

    const row = await usageRowOf(h.running.store, header(result, 'x-request-id')!);
    assert.equal(row.provider, 'acme-1');
    assert.equal(row.upstream_model, 'acme-large');
    assert.equal(Number(row.input_tokens), 21);
    assert.equal(Number(row.output_tokens), 4);
  });

  it('/v1/messages streamed goes to it natively, its events relayed as they came', async () => {
    upstream.setScenario({ textChunks: ['Hello ', 'again.'], usage: { inputTokens: 30, outputTokens: 3 } });
    const result = await post(messagesBody(true));
    assert.equal(result.status, 200, result.text);
    const events = parseSse(result.text);
    assert.equal(events[0]!.event, 'message_start');
    assert.equal(JSON.parse(events[0]!.data).message.model, ACME_MODEL);
    assert.equal(events.at(-1)!.event, 'message_stop');
    const text = events
      .map((e) => JSON.parse(e.data))
      .filter((e) => e.delta?.type === 'text_delta')
      .map((e) => e.delta.text)
      .join('');
    assert.equal(text, 'Hello again.');
    assert.equal(upstream.lastRequest()!.body.stream, true);
    const row = await usageRowOf(h.running.store, header(result, 'x-request-id')!);
    assert.equal(row.provider, 'acme-1');
    assert.equal(Number(row.output_tokens), 3);
  });

  it('a wire format it does not accept natively goes through its translating adapter (which Acme refuses)', async () => {
    const requests = upstream.requests.length;
    const result = await h.gateway('POST', '/v1/chat/completions', {
      headers: { authorization: `Bearer ${key}` },
      body: { model: ACME_MODEL, messages: [{ role: 'user', content: 'Hi' }] },
    });
    assert.ok(result.status >= 400, result.text);
    assert.equal(upstream.requests.length, requests, 'nothing was sent upstream');
  });

  it('the catalogue refuses a provider whose kind no adapter has', () => {
    assert.throws(
      () => new Catalogue({ providers: [{ id: 'ghost-1', kind: 'ghost', base_url: 'https://ghost.invalid' }] }),
      (error: unknown) => error instanceof ConfigError && /ghost/.test(error.message),
    );
  });
});
