import { describe, it, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { startHarness, storeKinds, type Harness, type HttpResult } from '../support/gateway-harness.js';
import { startMockAgentUpstream, type MockUpstream, type RecordedRequest } from '../support/mock-upstreams/index.js';
import { assertGatewayError, header, keySpend, parseSse, usageRowsByKey, waitFor } from '../support/chat-kit.js';

/**
 * Issue 27, row 4: a $1 key sent /v1/responses with `previous_response_id` to a dear model and
 * was charged $101.42 for one request: the provider bills the stored context again as input,
 * and the prompt estimate saw only the new turn. Forwarded members the estimate did not read
 * (`prediction.content`, unknown members of /v1/messages and /v1/responses) took a $1 key to $3.8.
 *
 * The bound now held (docs/budgets.md, "The bound"): a continued response is estimated with the
 * context the gateway recorded when it returned it, stored context the gateway has no record of
 * is refused on keys with a ceiling (`stored_context_unbounded`), and every forwarded member is
 * counted. The upstream here bills like OpenAI: a continuation's input is the stored context
 * (the previous response's input and output) plus the new body, the body at one token per
 * character (more than any tokenizer counts), and the output at every token of the cap sent.
 */
const RESPONSES = 'openai/dear-responses';
const CHAT = 'openai/dear-chat';
const MESSAGES = 'anthropic/dear-messages';
// 100 µ$ a token, in and out: $1 pays for 10,000 tokens.
const PRICING = { input_per_mtok: 100, output_per_mtok: 100 };
const MICRO_USD_PER_TOKEN = 100;
const CEILING_USD = 1;
const CEILING = CEILING_USD * 1_000_000;

function config(upstream: MockUpstream) {
  return {
    providers: [
      { id: 'responses', kind: 'openai', base_url: upstream.baseUrl, api_key_env: 'MOCK_KEY', responses_api: true },
      { id: 'chat', kind: 'openai', base_url: upstream.baseUrl, api_key_env: 'MOCK_KEY' },
      { id: 'anthropic', kind: 'anthropic', base_url: upstream.baseUrl, api_key_env: 'MOCK_KEY' },
    ],
    models: [
      { id: RESPONSES, providers: [{ provider: 'responses', model: 'dear' }], pricing: PRICING },
      { id: CHAT, providers: [{ provider: 'chat', model: 'dear' }], pricing: PRICING, max_output_tokens: 32_000 },
      { id: MESSAGES, providers: [{ provider: 'anthropic', model: 'dear' }], pricing: PRICING },
    ],
    retry: { max_attempts: 1, base_delay_ms: 0, max_delay_ms: 0 },
  };
}

/** Response ids are never reused, as the provider's are not. */
let nextResponse = 1;

/** An upstream that keeps every response it returns and bills it again to the request that continues it. */
class StoredContextBilling {
  private readonly stored = new Map<string, number>();

  constructor(private readonly upstream: MockUpstream) {
    upstream.setScenario((request) => this.answer(request));
  }

  private answer(request: RecordedRequest) {
    const body = (request.body ?? {}) as Record<string, unknown>;
    const previous = typeof body.previous_response_id === 'string' ? body.previous_response_id : undefined;
    const storedTokens = previous ? (this.stored.get(previous) ?? 0) : 0;
    const inputTokens = storedTokens + request.rawBody.length;
    const cap = body.max_output_tokens ?? body.max_tokens ?? body.max_completion_tokens;
    const outputTokens = typeof cap === 'number' ? cap : 1;
    const responseId = `resp_stored_${nextResponse++}`;
    this.stored.set(responseId, inputTokens + outputTokens);
    return { responseId, usage: { inputTokens, outputTokens } };
  }
}

const turn = (text: string, extra: Record<string, unknown> = {}) => ({
  model: RESPONSES,
  input: text,
  max_output_tokens: 2_000,
  ...extra,
});

/** The id of a Responses answer, JSON or streamed. */
function responseIdOf(result: HttpResult): string {
  if (result.json) return result.json.id;
  const completed = parseSse(result.text).find((e) => e.event === 'response.completed');
  assert.ok(completed, `a response.completed event: ${result.text.slice(-300)}`);
  return JSON.parse(completed.data).response.id;
}

async function settledSpend(h: Harness, keyId: string) {
  return waitFor(async () => {
    const spend = await keySpend(h.running.store, keyId);
    return spend.reserved === 0 ? spend : undefined;
  });
}

for (const store of storeKinds()) {
  describe(`a key with a ceiling and stored context (${store})`, () => {
    let h: Harness;
    let upstream: MockUpstream;
    let org: { id: string; slug: string; token: string };

    before(async () => {
      upstream = await startMockAgentUpstream({ apiKey: 'sk' });
      h = await startHarness({ store, config: config(upstream), env: { MOCK_KEY: 'sk' } });
      org = await h.organization();
    });
    after(async () => {
      await h.stop();
      await upstream.close();
    });
    beforeEach(() => {
      upstream.reset();
      new StoredContextBilling(upstream);
    });

    it('a chain of previous_response_id is estimated from the context the gateway recorded: $1 is not passed by more than the bound', async () => {
      const key = await h.createKey(org, { name: 'chain', max_usage: CEILING_USD });
      const post = (body: Record<string, unknown>) => h.gateway('POST', '/v1/responses', { token: key.key, body });

      const first = await post(turn('Remember the number seven.'));
      assert.equal(first.status, 200, first.text);
      // The continuation of a JSON answer is streamed, the next one continues the streamed answer.
      const second = await post(
        turn('Which number was it?', { previous_response_id: responseIdOf(first), stream: true }),
      );
      assert.equal(second.status, 200, second.text);
      const third = await post(turn('And twice that?', { previous_response_id: responseIdOf(second) }));

      const spend = await settledSpend(h, key.id);
      const rows = await usageRowsByKey(h.running.store, key.id);
      assert.equal(
        spend.spent,
        rows.reduce((sum, r) => sum + Number(r.cost_micro_usd), 0),
      );
      // The per-request bound of docs/budgets.md: what the provider billed for the prompt beyond
      // the gateway's estimate. Here at most every byte each admitted request sent upstream.
      const bound = upstream.requests.reduce((sum, r) => sum + r.rawBody.length * MICRO_USD_PER_TOKEN, 0);
      assert.ok(
        spend.spent <= CEILING + bound,
        `spent ${spend.spent} µ$ on a ${CEILING} µ$ key; the bound allows ${bound} µ$ more`,
      );
      // The stored context the third turn would be billed again cannot be paid for any more.
      assertGatewayError(third, { status: 429, code: 'usage_limit_exceeded' });
      assert.equal(upstream.requests.length, 2, 'the refused continuation never reached the upstream');
      assert.deepEqual(
        rows.map((r) => r.status_code).sort(),
        [200, 200, 429],
        'the refusal is metered like any other ceiling refusal',
      );
    });

    it('a previous_response_id the gateway never returned is refused before anything is sent', async () => {
      const key = await h.createKey(org, { name: 'unknown-id', max_usage: CEILING_USD });
      const result = await h.gateway('POST', '/v1/responses', {
        token: key.key,
        body: turn('Go on.', { previous_response_id: 'resp_from_elsewhere' }),
      });
      assertGatewayError(result, {
        status: 400,
        code: 'stored_context_unbounded',
        type: 'invalid_request_error',
        param: 'previous_response_id',
      });
      assert.equal(upstream.requests.length, 0);
      assert.equal((await settledSpend(h, key.id)).spent, 0);
    });

    it('an answer the provider does not keep (store: false) is not recorded: continuing it is refused', async () => {
      const key = await h.createKey(org, { name: 'unstored', max_usage: CEILING_USD });
      const answered = await h.gateway('POST', '/v1/responses', {
        token: key.key,
        body: turn('Hello.', { store: false, stream: true }),
      });
      assert.equal(answered.status, 200, answered.text);
      const continued = await h.gateway('POST', '/v1/responses', {
        token: key.key,
        body: turn('Go on.', { previous_response_id: responseIdOf(answered) }),
      });
      assertGatewayError(continued, { status: 400, code: 'stored_context_unbounded', param: 'previous_response_id' });
    });

    it("another organization's response id is unknown to this one; a key without a ceiling may continue it", async () => {
      const owner = await h.createKey(org, { name: 'owner', max_usage: CEILING_USD });
      const answered = await h.gateway('POST', '/v1/responses', { token: owner.key, body: turn('Hello.') });
      assert.equal(answered.status, 200, answered.text);
      const other = await h.organization();
      const capped = await h.createKey(other, { name: 'other-capped', max_usage: CEILING_USD });
      const continued = turn('Go on.', { previous_response_id: responseIdOf(answered) });
      const refused = await h.gateway('POST', '/v1/responses', { token: capped.key, body: continued });
      assertGatewayError(refused, { status: 400, code: 'stored_context_unbounded', param: 'previous_response_id' });
      const unlimited = await h.createKey(other, { name: 'other-unlimited' });
      const served = await h.gateway('POST', '/v1/responses', { token: unlimited.key, body: continued });
      assert.equal(served.status, 200, served.text);
    });

    const unknowable: Array<{ what: string; path: string; body: Record<string, unknown>; param: string }> = [
      {
        what: 'a stored conversation',
        path: '/v1/responses',
        body: turn('Go on.', { conversation: 'conv_123' }),
        param: 'conversation',
      },
      {
        what: 'a hosted tool',
        path: '/v1/responses',
        body: turn('Search the web.', { tools: [{ type: 'web_search' }] }),
        param: 'tools',
      },
      {
        what: 'a file by file_id',
        path: '/v1/responses',
        body: turn('', {
          input: [{ type: 'message', role: 'user', content: [{ type: 'input_file', file_id: 'file-abc' }] }],
        }),
        param: 'input',
      },
      {
        what: 'web search',
        path: '/v1/chat/completions',
        body: {
          model: CHAT,
          max_tokens: 100,
          messages: [{ role: 'user', content: 'What happened today?' }],
          web_search_options: {},
        },
        param: 'web_search_options',
      },
      {
        what: 'a chat file by file_id',
        path: '/v1/chat/completions',
        body: {
          model: CHAT,
          max_tokens: 100,
          messages: [{ role: 'user', content: [{ type: 'file', file: { file_id: 'file-abc' } }] }],
        },
        param: 'messages',
      },
      {
        what: 'MCP servers',
        path: '/v1/messages',
        body: {
          model: MESSAGES,
          max_tokens: 1_000,
          messages: [{ role: 'user', content: 'Use the tools.' }],
          mcp_servers: [{ type: 'url', url: 'https://mcp.example.test/sse', name: 'docs' }],
        },
        param: 'mcp_servers',
      },
      {
        what: 'a container',
        path: '/v1/messages',
        body: {
          model: MESSAGES,
          max_tokens: 1_000,
          messages: [{ role: 'user', content: 'Run it again.' }],
          container: 'container_123',
        },
        param: 'container',
      },
    ];
    for (const { what, path, body, param } of unknowable) {
      it(`${what} (${path}) is refused on a key with a ceiling, in the surface's envelope, and served on one without`, async () => {
        const capped = await h.createKey(org, { name: `capped ${what}`, max_usage: CEILING_USD });
        const refused = await h.gateway('POST', path, { token: capped.key, body });
        const error = assertGatewayError(refused, {
          status: 400,
          code: 'stored_context_unbounded',
          type: 'invalid_request_error',
          param,
        });
        assert.match(error.message, /monthly limit/);
        if (path === '/v1/messages') assert.equal(refused.json.type, 'error', 'Anthropic envelope');
        assert.equal(upstream.requests.length, 0);
        const unlimited = await h.createKey(org, { name: `unlimited ${what}` });
        const served = await h.gateway('POST', path, { token: unlimited.key, body });
        assert.equal(served.status, 200, served.text);
      });
    }

    // About 20,000 tokens by any tokenizer: $2 at this price, twice the ceiling.
    const bulk = 'word '.repeat(20_000);
    const forwarded: Array<{ what: string; path: string; body: Record<string, unknown> }> = [
      {
        what: 'prediction.content',
        path: '/v1/chat/completions',
        body: {
          model: CHAT,
          max_tokens: 100,
          messages: [{ role: 'user', content: 'Fix the typo.' }],
          prediction: { type: 'content', content: bulk },
        },
      },
      {
        what: 'an unknown member of /v1/messages',
        path: '/v1/messages',
        body: {
          model: MESSAGES,
          max_tokens: 100,
          messages: [{ role: 'user', content: 'Summarise.' }],
          future_context: bulk,
        },
      },
      {
        what: 'an unknown member of /v1/responses',
        path: '/v1/responses',
        body: { model: RESPONSES, input: 'Summarise.', max_output_tokens: 100, future_context: bulk },
      },
    ];
    for (const { what, path, body } of forwarded) {
      it(`${what} counts in the prompt estimate: a prompt the key cannot pay for is refused`, async () => {
        const key = await h.createKey(org, { name: `forwarded ${what}`, max_usage: CEILING_USD });
        const result = await h.gateway('POST', path, { token: key.key, body });
        assert.equal(result.status, 429, `${what} was admitted: ${result.text.slice(0, 300)}`);
        assert.equal(result.json.error.code, 'usage_limit_exceeded');
        assert.equal(upstream.requests.length, 0);
        assert.equal((await settledSpend(h, key.id)).spent, 0);
      });
    }

    it('a forwarded member the key can pay for is reserved and the answer is served within the ceiling', async () => {
      const key = await h.createKey(org, { name: 'small prediction', max_usage: CEILING_USD });
      const prediction = 'word '.repeat(2_000);
      const result = await h.gateway('POST', '/v1/chat/completions', {
        token: key.key,
        body: {
          model: CHAT,
          messages: [{ role: 'user', content: 'Fix the typo.' }],
          prediction: { type: 'content', content: prediction },
        },
      });
      assert.equal(result.status, 200, result.text);
      // $1 pays for 10,000 tokens: the output cap is what is left once the prediction (2,000
      // tokens and more) is paid for as prompt.
      const cap = Number(header(result, 'x-gateway-max-tokens-applied'));
      assert.ok(cap > 0 && cap < 10_000 - 2_000, `cap ${cap} leaves no room for the prediction`);
      const spend = await settledSpend(h, key.id);
      const bound = upstream.requests[0]!.rawBody.length * MICRO_USD_PER_TOKEN;
      assert.ok(spend.spent <= CEILING + bound, `spent ${spend.spent}`);
    });
  });
}
