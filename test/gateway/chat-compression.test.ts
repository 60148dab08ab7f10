import { describe, it, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { startHarness, type Harness } from '../support/gateway-harness.js';
import { startMockOpenAI, type MockUpstream } from '../support/mock-upstreams/index.js';
import { PRICING, assertGatewayError, header, sseData, usageRowOf } from '../support/chat-kit.js';
import { join } from 'node:path';
import { TRAJECTORY_DIR } from '../fixtures/trajectories.js';

const TRAJECTORY = join(
  TRAJECTORY_DIR,
  'replay__marshmallow-code__marshmallow-1867__function_calling__install-1__marshmallow-code__marshmallow-1867.traj',
);
const MODEL = 'openai/gpt-4o-mini';
/** What the mock bills as the (compressed) prompt. */
const BILLED_PROMPT = 5_000;

interface TrajectoryMessage {
  role: string;
  content: unknown;
  tool_calls?: Array<{ id: string; type: string; function: { name: string; arguments: string } }>;
  tool_call_ids?: string[];
}

/** The SWE-agent history as a chat request: agent-only fields dropped, `tool_call_ids` → `tool_call_id`. */
function trajectoryMessages(): Array<Record<string, unknown>> {
  const history = (JSON.parse(readFileSync(TRAJECTORY, 'utf8')) as { history: TrajectoryMessage[] }).history;
  return history.map((m) => {
    const message: Record<string, unknown> = {
      role: m.role,
      content: typeof m.content === 'string' ? m.content : JSON.stringify(m.content),
    };
    if (m.tool_calls?.length) {
      message.tool_calls = m.tool_calls.map((c) => ({
        id: c.id,
        type: 'function',
        function: { name: c.function.name, arguments: c.function.arguments },
      }));
    }
    if (m.tool_call_ids?.length) message.tool_call_id = m.tool_call_ids[0];
    return message;
  });
}

const characters = (messages: Array<{ content?: unknown }>) =>
  messages.reduce(
    (n, m) => n + (typeof m.content === 'string' ? m.content.length : JSON.stringify(m.content ?? '').length),
    0,
  );

describe('compression inside chat completions', () => {
  let h: Harness;
  let mock: MockUpstream;
  let org: { id: string; token: string };
  let plainKey: { id: string; key: string };
  const messages = trajectoryMessages();

  before(async () => {
    mock = await startMockOpenAI();
    h = await startHarness({
      config: {
        providers: [{ id: 'mock-openai', kind: 'openai', base_url: mock.baseUrl, api_key_env: 'MOCK_KEY' }],
        models: [{ id: MODEL, providers: [{ provider: 'mock-openai', model: 'gpt-4o-mini' }], pricing: PRICING }],
      },
      env: { MOCK_KEY: 'sk-mock' },
    });
    org = await h.organization();
    plainKey = await h.createKey(org, { name: 'no compression' });
  });
  after(async () => {
    await h.stop();
    await mock.close();
  });
  beforeEach(() => {
    mock.reset();
    mock.setScenario({ text: 'Next step.', usage: { inputTokens: BILLED_PROMPT, outputTokens: 3 } });
  });

  const chat = (body: Record<string, unknown>, token = plainKey.key, headers: Record<string, string> = {}) =>
    h.gateway('POST', '/v1/chat/completions', { token, headers, body: { model: MODEL, messages, ...body } });

  function assertCompressed(result: Awaited<ReturnType<typeof chat>>): { saved_tokens: number } {
    assert.equal(result.status, 200, result.text);
    const received = mock.lastRequest()!.body.messages as Array<{
      content?: unknown;
      tool_call_id?: string;
      tool_calls?: unknown;
    }>;
    assert.ok(
      characters(received) < characters(messages),
      `upstream got ${characters(received)} of ${characters(messages)} characters`,
    );
    assert.equal(received.length, messages.length, 'no message dropped');
    assert.deepEqual(
      received.map((m) => m.tool_call_id ?? null),
      messages.map((m) => m.tool_call_id ?? null),
      'every tool result keeps its call id',
    );
    const compression = result.json.compression;
    assert.ok(compression, 'compression object in the response');
    assert.deepEqual(Object.keys(compression).sort(), ['cost_savings', 'reduction', 'saved_tokens', 'time_ms']);
    assert.ok(Number.isInteger(compression.saved_tokens) && compression.saved_tokens > 0);
    // Savings are money with caching counted (issue 19), priced from the usage the mock reported:
    // it reads nothing from a cache, so removed tokens are worth the input price ($0.15/MTok), less
    // what a history rewrite paid to send the rewritten tail again; never more than that price.
    assert.ok(Number.isInteger(compression.cost_savings));
    assert.ok(compression.cost_savings > 0, `cost_savings ${compression.cost_savings}`);
    assert.ok(compression.cost_savings <= Math.round(compression.saved_tokens * PRICING.input_per_mtok) + 1);
    assert.ok(compression.reduction > 0 && compression.reduction < 100, `reduction ${compression.reduction}`);
    assert.ok(Number.isInteger(compression.time_ms), 'whole milliseconds');
    // prompt_tokens is what the provider billed for the compressed prompt.
    assert.equal(result.json.usage.prompt_tokens, BILLED_PROMPT);
    return compression;
  }

  it('compression_model in the body compresses the conversation before forwarding, and the usage row keeps both counts', async () => {
    const result = await chat({ compression_model: 'claude' });
    const compression = assertCompressed(result);
    assert.equal(mock.lastRequest()!.body.compression_model, undefined, 'gateway-only fields are not forwarded');
    const row = await usageRowOf(h.running.store, header(result, 'x-request-id')!);
    assert.equal(Number(row.input_tokens), BILLED_PROMPT);
    assert.equal(Number(row.uncompressed_input_tokens), BILLED_PROMPT + compression.saved_tokens);
    assert.ok(Number(row.uncompressed_input_tokens) > Number(row.input_tokens));
    // The sessions page names the strategies applied (migration 031): distinct names, comma-separated.
    const strategies = String(row.compression_strategies).split(',');
    assert.ok(
      strategies.length > 0 && strategies.every((name) => /^[a-z0-9_-]+$/.test(name)),
      String(row.compression_strategies),
    );
    assert.equal(new Set(strategies).size, strategies.length);
  });

  it('X-Gateway-Compression-Model does the same as the body field', async () => {
    assertCompressed(await chat({}, plainKey.key, { 'x-gateway-compression-model': 'claude' }));
  });

  it('a streamed request is compressed too, and its usage chunk carries the compression object', async () => {
    const result = await chat({ compression_model: 'claude', stream: true, stream_options: { include_usage: true } });
    assert.equal(result.status, 200);
    const received = mock.lastRequest()!.body.messages as Array<{ content?: unknown }>;
    assert.ok(characters(received) < characters(messages));
    const usageChunk = sseData(result.text).find((e) => e !== '[DONE]' && e.choices.length === 0);
    assert.ok(usageChunk?.compression?.saved_tokens > 0, JSON.stringify(usageChunk));
    const row = await usageRowOf(h.running.store, header(result, 'x-request-id')!);
    assert.equal(Number(row.uncompressed_input_tokens), BILLED_PROMPT + usageChunk.compression.saved_tokens);
  });

  it('a key created with compression: true compresses without any request field', async () => {
    const key = await h.createKey(org, { name: 'compressing', compression: true });
    assert.equal(key.compression, true);
    const compression = assertCompressed(await chat({}, key.key));
    assert.ok(compression.saved_tokens > 0);
  });

  it('a key switched to compression: true by an update compresses from then on', async () => {
    const key = await h.createKey(org, { name: 'switched' });
    const off = await chat({}, key.key);
    assert.equal(off.json.compression, undefined);
    const updated = await h.console('POST', `/v1/organizations/${org.id}/api_keys/${key.id}`, {
      token: org.token,
      body: { compression: true },
    });
    assert.equal(updated.status, 200, updated.text);
    // Key settings are cached for a short while (GATEWAY_KEY_CACHE_TTL_MS, 1 s by default): poll.
    const until = performance.now() + 5_000;
    let result = await chat({}, key.key);
    while (!result.json.compression && performance.now() < until) {
      await new Promise((r) => setTimeout(r, 100));
      result = await chat({}, key.key);
    }
    assertCompressed(result);
  });

  it('without a compression model or key setting, the upstream receives the messages unchanged', async () => {
    const result = await chat({});
    assert.equal(result.status, 200, result.text);
    assert.equal(result.json.compression, undefined);
    assert.deepEqual(mock.lastRequest()!.body.messages, messages);
    const row = await usageRowOf(h.running.store, header(result, 'x-request-id')!);
    assert.equal(row.uncompressed_input_tokens, null);
    assert.equal(row.compression_strategies, null);
  });

  it('an unknown compression_model is 400 naming compression_model', async () => {
    assertGatewayError(await chat({ compression_model: 'vim' }), {
      status: 400,
      code: 'invalid_request',
      param: 'compression_model',
    });
    assertGatewayError(await chat({}, plainKey.key, { 'x-gateway-compression-model': 'vim' }), {
      status: 400,
      code: 'invalid_request',
      param: 'compression_model',
    });
    assert.equal(mock.requests.length, 0);
  });
});
