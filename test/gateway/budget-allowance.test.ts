import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startHarness, storeKinds, type Harness, type HttpResult } from '../support/gateway-harness.js';
import {
  startMockAgentUpstream,
  startMockAnthropic,
  startMockOpenAI,
  type MockUpstream,
  type RecordedRequest,
} from '../support/mock-upstreams/index.js';
import { keySpend, parseSse, waitFor } from '../support/chat-kit.js';
import { MIN_ANSWER_TOKENS } from '../../src/limits/output-allowance.js';

/**
 * Admission that spends the budget (docs/budgets.md): a key with a ceiling gets an output cap its
 * remaining room pays for instead of a refusal sized on the model's maximum output.
 *
 * The model is priced like gpt-5 ($1.25 in, $10 out per MTok) with a 128k output maximum: the
 * worst case of one call without max_tokens ($1.28 of output alone) is more than the whole $1
 * ceiling. Every upstream answer fills its cap (output tokens = the max tokens it was sent, the
 * worst case) and bills 1,000 prompt tokens, far more than the few the gateway counts, so each
 * admitted request can pass its reservation by at most 1,000 × $1.25/MTok = 1,250 micro-USD:
 * the documented bound is that excess per admitted request.
 */
const MODEL = 'test/big';
const CLAUDE = 'anthropic/claude-big';
const CODEX = 'openai/codex-big'; // served by a Responses-capable provider: /v1/responses goes native
const PRICING = { input_per_mtok: 1.25, output_per_mtok: 10 };
const MODEL_MAX = 128_000;
const CEILING_USD = 1;
const CEILING = CEILING_USD * 1_000_000;
const BILLED_PROMPT = 1_000;
const EXCESS_PER_REQUEST = BILLED_PROMPT * PRICING.input_per_mtok;
const APPLIED = 'x-gateway-max-tokens-applied';

function outputCapOf(request: RecordedRequest): number {
  const body = request.body as { max_tokens?: number; max_completion_tokens?: number };
  return body.max_completion_tokens ?? body.max_tokens ?? MODEL_MAX;
}

/** The model writes until its cap; slow enough that concurrent requests hold their reservations together. */
function fillTheCap(mock: MockUpstream, hangMs = 0): void {
  mock.setScenario((request) => ({
    text: 'A long answer.',
    finishReason: 'length',
    usage: { inputTokens: BILLED_PROMPT, outputTokens: outputCapOf(request) },
    hangBeforeHeadersMs: hangMs,
  }));
}

const chat = (extra: Record<string, unknown> = {}) => ({
  model: MODEL,
  messages: [{ role: 'user', content: 'Write as much as you can.' }],
  ...extra,
});

for (const store of storeKinds()) {
  describe(`budget admission spends the budget (${store})`, () => {
    let h: Harness;
    let openai: MockUpstream;
    let anthropic: MockUpstream;
    let responses: MockUpstream;
    let org: { id: string; token: string };

    before(async () => {
      openai = await startMockOpenAI();
      anthropic = await startMockAnthropic();
      responses = await startMockAgentUpstream();
      h = await startHarness({
        store,
        config: {
          providers: [
            { id: 'mock-openai', kind: 'openai', base_url: openai.baseUrl, api_key_env: 'MOCK_KEY' },
            { id: 'mock-anthropic', kind: 'anthropic', base_url: anthropic.baseUrl, api_key_env: 'MOCK_KEY' },
            {
              id: 'mock-responses',
              kind: 'openai',
              base_url: responses.baseUrl,
              api_key_env: 'MOCK_KEY',
              responses_api: true,
            },
          ],
          models: [
            {
              id: MODEL,
              providers: [{ provider: 'mock-openai', model: 'big' }],
              pricing: PRICING,
              max_output_tokens: MODEL_MAX,
            },
            {
              id: CLAUDE,
              providers: [{ provider: 'mock-anthropic', model: 'claude-big' }],
              pricing: {
                input_per_mtok: 3,
                output_per_mtok: 15,
                cached_input_per_mtok: 0.3,
                cache_write_per_mtok: 3.75,
              },
              max_output_tokens: 64_000,
            },
            {
              id: CODEX,
              providers: [{ provider: 'mock-responses', model: 'codex-big' }],
              pricing: PRICING,
              max_output_tokens: MODEL_MAX,
            },
          ],
          retry: { max_attempts: 1, base_delay_ms: 0, max_delay_ms: 0 },
        },
        env: { MOCK_KEY: 'sk-mock' },
      });
      org = await h.organization();
    });
    after(async () => {
      await h.stop();
      await openai.close();
      await anthropic.close();
      await responses.close();
    });

    async function settled(keyId: string): Promise<{ spent: number; reserved: number }> {
      return waitFor(
        async () => {
          const spend = await keySpend(h.running.store, keyId);
          return spend.reserved === 0 ? spend : undefined;
        },
        { what: 'reservations settled' },
      );
    }

    it('a key with a $1 ceiling calls a model with a 128k output maximum without max_tokens and gets an answer', async () => {
      const key = await h.createKey(org, { name: 'one dollar', max_usage: CEILING_USD });
      openai.reset();
      fillTheCap(openai);
      const result = await h.gateway('POST', '/v1/chat/completions', { token: key.key, body: chat() });
      assert.equal(result.status, 200, result.text);
      assert.equal(result.json.choices[0].message.content, 'A long answer.');
      const applied = Number(result.headers[APPLIED]);
      assert.equal(outputCapOf(openai.lastRequest()!), applied, 'the header names the cap sent upstream');
      assert.ok(applied > MIN_ANSWER_TOKENS && applied < MODEL_MAX, `cap ${applied}`);
      // The cap is what $1 pays for after the prompt: within a few hundred tokens of $1 / $10 per MTok.
      assert.ok(applied > 99_000 && applied <= 100_000, `cap ${applied}`);
      const spend = await settled(key.id);
      assert.ok(spend.spent <= CEILING + EXCESS_PER_REQUEST, `spent ${spend.spent}`);

      // The key is spent: the next request cannot pay for its prompt and a minimal answer.
      const refused = await h.gateway('POST', '/v1/chat/completions', { token: key.key, body: chat() });
      assert.equal(refused.status, 429);
      assert.equal(refused.json.error.code, 'usage_limit_exceeded');
      assert.match(refused.json.error.message, /minimal answer/);
    });

    it('a streamed request carries the applied cap in its headers too', async () => {
      const key = await h.createKey(org, { name: 'stream', max_usage: CEILING_USD });
      openai.reset();
      fillTheCap(openai);
      const result = await h.gateway('POST', '/v1/chat/completions', {
        token: key.key,
        body: chat({ stream: true }),
      });
      assert.equal(result.status, 200, result.text);
      assert.ok(parseSse(result.text).length > 1);
      assert.equal(Number(result.headers[APPLIED]), outputCapOf(openai.lastRequest()!));
    });

    it("a client's own max_tokens is kept while it fits and lowered, never raised, when it does not", async () => {
      const key = await h.createKey(org, { name: 'explicit', max_usage: CEILING_USD });
      openai.reset();
      fillTheCap(openai);
      const small = await h.gateway('POST', '/v1/chat/completions', {
        token: key.key,
        body: chat({ max_tokens: 300 }),
      });
      assert.equal(small.status, 200, small.text);
      assert.equal(small.headers[APPLIED], '300');
      assert.equal(openai.lastRequest()!.body.max_tokens, 300);

      const large = await h.gateway('POST', '/v1/chat/completions', {
        token: key.key,
        body: chat({ max_completion_tokens: 120_000 }),
      });
      assert.equal(large.status, 200, large.text);
      const applied = Number(large.headers[APPLIED]);
      assert.ok(applied < 100_000, `cap ${applied}`);
      assert.equal(openai.lastRequest()!.body.max_completion_tokens, applied);
      assert.equal(openai.lastRequest()!.body.max_tokens, undefined, 'no second cap member is added');
    });

    it('a key without a ceiling is left alone: no cap added, no header', async () => {
      const key = await h.createKey(org, { name: 'unlimited' });
      openai.reset();
      fillTheCap(openai);
      const result = await h.gateway('POST', '/v1/chat/completions', { token: key.key, body: chat() });
      assert.equal(result.status, 200, result.text);
      assert.equal(result.headers[APPLIED], undefined);
      assert.equal(openai.lastRequest()!.body.max_tokens, undefined);
    });

    it('/v1/messages served natively: the client’s max_tokens is lowered to what the key can pay', async () => {
      const key = await h.createKey(org, { name: 'claude', max_usage: CEILING_USD });
      anthropic.reset();
      anthropic.setScenario((request) => ({ usage: { inputTokens: 20, outputTokens: outputCapOf(request) } }));
      const result = await h.gateway('POST', '/v1/messages', {
        token: key.key,
        body: { model: CLAUDE, max_tokens: 64_000, messages: [{ role: 'user', content: 'Hi' }] },
      });
      assert.equal(result.status, 200, result.text);
      // 64,000 output tokens at $15 per MTok is $0.96: with the prompt it fits, the client's cap is kept.
      assert.equal(result.headers[APPLIED], '64000');
      assert.equal(anthropic.lastRequest()!.body.max_tokens, 64_000);
      await settled(key.id);

      // About $0.04 is left: the next request is served with the cap that pays for, not refused.
      const second = await h.gateway('POST', '/v1/messages', {
        token: key.key,
        body: { model: CLAUDE, max_tokens: 64_000, messages: [{ role: 'user', content: 'Again' }] },
      });
      assert.equal(second.status, 200, second.text);
      const applied = Number(second.headers[APPLIED]);
      assert.ok(applied >= MIN_ANSWER_TOKENS && applied < 3_000, `cap ${applied}`);
      assert.equal(anthropic.lastRequest()!.body.max_tokens, applied);
      await settled(key.id);

      const third = await h.gateway('POST', '/v1/messages', {
        token: key.key,
        body: { model: CLAUDE, max_tokens: 64_000, messages: [{ role: 'user', content: 'Once more' }] },
      });
      assert.equal(third.status, 429, third.text);
      assert.equal(third.json.type, 'error', 'the Anthropic envelope');
      // Each of the two answers billed 20 prompt tokens, more than the gateway counted for "Hi":
      // the bound is that undercount at $3 per MTok, per admitted request.
      const spend = await keySpend(h.running.store, key.id);
      assert.ok(spend.spent <= CEILING + 2 * 20 * 3, `spent ${spend.spent}`);
    });

    it('/v1/responses served natively: max_output_tokens set to what the key can pay', async () => {
      const key = await h.createKey(org, { name: 'codex', max_usage: CEILING_USD });
      responses.reset();
      responses.setScenario({ usage: { inputTokens: 20, outputTokens: 10 } });
      const result = await h.gateway('POST', '/v1/responses', {
        token: key.key,
        body: { model: CODEX, input: 'Hi' },
      });
      assert.equal(result.status, 200, result.text);
      const applied = Number(result.headers[APPLIED]);
      assert.ok(applied > 99_000 && applied < MODEL_MAX, `cap ${applied}`);
      const sent = responses.lastRequest()!;
      assert.equal(sent.path, '/v1/responses', 'the native path');
      assert.equal(sent.body.max_output_tokens, applied);
    });

    for (const [label, extra] of [
      ['without max_tokens', {}],
      ['with max_tokens 2500', { max_tokens: 2_500 }],
    ] as const) {
      it(`50 concurrent requests ${label} never spend more than the ceiling plus the documented bound`, async () => {
        const key = await h.createKey(org, { name: `burst ${label}`, max_usage: CEILING_USD });
        openai.reset();
        fillTheCap(openai, 50);
        const results: HttpResult[] = await Promise.all(
          Array.from({ length: 50 }, () =>
            h.gateway('POST', '/v1/chat/completions', { token: key.key, body: chat(extra) }),
          ),
        );
        const ok = results.filter((r) => r.status === 200);
        const refused = results.filter((r) => r.status === 429);
        assert.equal(ok.length + refused.length, 50, JSON.stringify(results.map((r) => r.status)));
        assert.ok(ok.length >= 1, 'the budget admits at least one');
        for (const r of refused) assert.equal(r.json.error.code, 'usage_limit_exceeded');
        assert.equal(openai.requests.length, ok.length, 'refused requests never reach the upstream');
        const caps = ok.map((r) => Number(r.headers[APPLIED]));
        const sent = openai.requests.map(outputCapOf).sort((a, b) => a - b);
        assert.deepEqual(
          [...caps].sort((a, b) => a - b),
          sent,
          'each header names its upstream cap',
        );
        for (const cap of caps) assert.ok(cap >= MIN_ANSWER_TOKENS, `cap ${cap}`);
        if ('max_tokens' in extra) {
          assert.ok(caps.filter((c) => c < extra.max_tokens).length <= 1, 'at most one request gets the remainder');
          assert.ok(ok.length >= 35, `${ok.length} admitted; $1 pays for ~39 full ones`);
        }
        const spend = await settled(key.id);
        assert.ok(
          spend.spent <= CEILING + ok.length * EXCESS_PER_REQUEST,
          `spent ${spend.spent} with ${ok.length} admitted`,
        );
        // Every answer filled its cap: the budget was spent, not left unused.
        assert.ok(spend.spent >= CEILING * 0.98, `spent ${spend.spent}`);
      });
    }
  });
}
