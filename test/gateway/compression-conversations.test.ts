// Compression as part of a conversation: state shared by gateway instances, the gateway's own
// prompt-cache hints (Anthropic breakpoints, OpenAI prompt_cache_key) and the money saved.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startHarness, storeKinds, type Harness } from '../support/gateway-harness.js';
import { startMockAnthropic, startMockOpenAI, type MockUpstream } from '../support/mock-upstreams/index.js';
import { PRICING, header, usageRowOf } from '../support/chat-kit.js';
import { build, items, type Dialogue } from '../compress/helpers/build.js';

/** A coding session whose every output is new (nothing for first-sight to merge) and long. */
function session(turns: number): Dialogue {
  return {
    system: 'You are a coding agent. Run one command per turn.',
    task: 'Find why the build fails and fix it.',
    turns: Array.from({ length: turns }, (_, i) => ({
      assistant: `Step ${i}: looking further.`,
      calls: [
        {
          id: `call_${i}`,
          name: 'bash',
          args: { command: `python step_${i}.py` },
          output: Array.from(
            { length: 40 },
            (_, k) => `step ${i} row ${k}: value=${(i * 7919 + k * 104729) % 100_003}`,
          ).join('\n'),
        },
      ],
    })),
  };
}

const TINY = 'anthropic/claude-tiny';

describe(
  'compression conversations on PostgreSQL: two instances',
  { skip: !process.env.GATEWAY_TEST_DATABASE_URL && 'PostgreSQL only (GATEWAY_TEST_DATABASE_URL)' },
  () => {
    let a: Harness;
    let b: Harness;
    let tokens: { alternating: string; single: string };

    before(async () => {
      // A model whose small context window forces history rewrites as the conversation grows;
      // /v1/compress never calls its provider.
      const config = {
        providers: [
          { id: 'anthropic-unused', kind: 'anthropic', base_url: 'http://127.0.0.1:9/v1', api_key_env: 'UNUSED' },
        ],
        models: [
          {
            id: TINY,
            providers: [{ provider: 'anthropic-unused', model: 'claude-tiny' }],
            pricing: PRICING,
            context_window: 8000,
          },
        ],
      };
      a = await startHarness({ store: 'postgres', config });
      b = await startHarness({ store: 'postgres', config, dataDir: a.dataDir, schema: a.schema! });
      const org = await a.organization();
      tokens = {
        alternating: (await a.createKey(org, { name: 'alternating' })).key,
        single: (await a.createKey(org, { name: 'single' })).key,
      };
    });
    after(async () => {
      await b.stop();
      await a.stop();
    });

    it('requests of one conversation alternating between instances compress byte for byte as on one instance, rewrites included', async () => {
      const full = session(24);
      const sent: { alternating: string[]; single: string[] } = { alternating: [], single: [] };
      for (let n = 1; n <= full.turns.length; n++) {
        const body = { ...build({ ...full, turns: full.turns.slice(0, n) }, 'chat'), model: TINY };
        const viaBoth = await (n % 2 === 0 ? b : a).gateway('POST', '/v1/compress', {
          token: tokens.alternating,
          body,
        });
        const viaOne = await a.gateway('POST', '/v1/compress', { token: tokens.single, body });
        assert.equal(viaBoth.status, 200, viaBoth.text);
        assert.equal(viaOne.status, 200, viaOne.text);
        sent.alternating.push(JSON.stringify(items(viaBoth.json)));
        sent.single.push(JSON.stringify(items(viaOne.json)));
      }
      assert.deepEqual(sent.alternating, sent.single);
      const last = JSON.parse(sent.alternating.at(-1)!) as Array<{ content?: unknown }>;
      assert.ok(
        last.some((m) => typeof m.content === 'string' && m.content.startsWith('[Earlier tool output removed')),
        'the context window made the history be rewritten',
      );
      // Between two rewrites every request extends the previous one's prefix byte for byte.
      let stable = 0;
      for (let n = 1; n < sent.alternating.length; n++) {
        const before = JSON.parse(sent.alternating[n - 1]!) as unknown[];
        const now = JSON.parse(sent.alternating[n]!) as unknown[];
        if (before.every((m, i) => JSON.stringify(m) === JSON.stringify(now[i]))) stable++;
      }
      assert.ok(
        stable >= sent.alternating.length / 2,
        `${stable} of ${sent.alternating.length - 1} turns kept the prefix`,
      );
    });
  },
);

for (const kind of storeKinds()) {
  describe(`gateway prompt-cache management (${kind})`, () => {
    let h: Harness;
    let anthropic: MockUpstream;
    let openai: MockUpstream;
    let org: { id: string; token: string };
    let key: string;

    before(async () => {
      anthropic = await startMockAnthropic();
      openai = await startMockOpenAI();
      h = await startHarness({
        store: kind,
        config: {
          providers: [
            { id: 'mock-anthropic', kind: 'anthropic', base_url: anthropic.baseUrl, api_key_env: 'MOCK_KEY' },
            // The provider id `openai` is OpenAI's own API: it gets a prompt_cache_key.
            { id: 'openai', kind: 'openai', base_url: openai.baseUrl, api_key_env: 'MOCK_KEY' },
          ],
          models: [
            {
              id: 'anthropic/claude-mock',
              providers: [{ provider: 'mock-anthropic', model: 'claude-mock' }],
              pricing: { ...PRICING, cache_write_per_mtok: 0.1875 },
            },
            { id: 'openai/gpt-mock', providers: [{ provider: 'openai', model: 'gpt-mock' }], pricing: PRICING },
          ],
        },
        env: { MOCK_KEY: 'sk-mock' },
      });
      org = await h.organization();
      key = (await h.createKey(org, { name: 'cache' })).key;
    });
    after(async () => {
      await h.stop();
      await anthropic.close();
      await openai.close();
    });

    const chat = (
      model: string,
      turns: number,
      headers: Record<string, string> = {},
      extra: Record<string, unknown> = {},
    ) =>
      h.gateway('POST', '/v1/chat/completions', {
        token: key,
        headers,
        body: { ...build(session(turns), 'chat'), model, ...extra },
      });

    it('a chat client without cache_control to Claude gets breakpoints at the end of the system prompt and at its last message', async () => {
      const result = await chat('anthropic/claude-mock', 3);
      assert.equal(result.status, 200, result.text);
      const sent = anthropic.lastRequest()!.body as {
        system: Array<Record<string, unknown>>;
        messages: Array<{ content: Array<Record<string, unknown>> }>;
      };
      assert.deepEqual(sent.system.at(-1)!.cache_control, { type: 'ephemeral' });
      assert.deepEqual(sent.messages.at(-1)!.content.at(-1)!.cache_control, { type: 'ephemeral' });
      const marks = JSON.stringify(sent).match(/"cache_control"/g)?.length ?? 0;
      assert.ok(marks >= 2 && marks <= 4, `${marks} breakpoints`);
    });

    it('X-Gateway-Cache-Breakpoints: off sends the client body without any breakpoint; a bad value is a 400', async () => {
      const result = await chat('anthropic/claude-mock', 3, { 'x-gateway-cache-breakpoints': 'off' });
      assert.equal(result.status, 200, result.text);
      assert.ok(!JSON.stringify(anthropic.lastRequest()!.body).includes('cache_control'));
      const bad = await chat('anthropic/claude-mock', 3, { 'x-gateway-cache-breakpoints': 'sometimes' });
      assert.equal(bad.status, 400);
      assert.equal(bad.json.error.param, 'x-gateway-cache-breakpoints');
    });

    it('a key set to cache_breakpoints: false through the console API gets no breakpoints; the header turns them back on', async () => {
      const created = await h.createKey(org, { name: 'own-cache', cache_breakpoints: false });
      const shown = await h.console('GET', `/v1/organizations/${org.id}/api_keys/${created.id}`, { token: org.token });
      assert.equal(shown.json.cache_breakpoints, false);
      const send = (headers: Record<string, string> = {}) =>
        h.gateway('POST', '/v1/chat/completions', {
          token: created.key,
          headers,
          body: { ...build(session(3), 'chat'), model: 'anthropic/claude-mock' },
        });
      assert.equal((await send()).status, 200);
      assert.ok(!JSON.stringify(anthropic.lastRequest()!.body).includes('cache_control'), 'key setting off');
      assert.equal((await send({ 'x-gateway-cache-breakpoints': 'on' })).status, 200);
      assert.ok(JSON.stringify(anthropic.lastRequest()!.body).includes('cache_control'), 'the header wins');
      const updated = await h.console('POST', `/v1/organizations/${org.id}/api_keys/${created.id}`, {
        token: org.token,
        body: { cache_breakpoints: true },
      });
      assert.equal(updated.json.cache_breakpoints, true);
      assert.equal((await send()).status, 200);
      assert.ok(JSON.stringify(anthropic.lastRequest()!.body).includes('cache_control'), 'key setting on again');
      const refused = await h.console('POST', `/v1/organizations/${org.id}/api_keys/${created.id}`, {
        token: org.token,
        body: { cache_breakpoints: 'yes' },
      });
      assert.equal(refused.status, 400);
    });

    it('OpenAI gets one prompt_cache_key per conversation, the same on every turn', async () => {
      await chat('openai/gpt-mock', 2);
      const first = openai.lastRequest()!.body.prompt_cache_key as string;
      await chat('openai/gpt-mock', 3);
      assert.match(first, /^gw-[0-9a-f]{40}$/);
      assert.equal(openai.lastRequest()!.body.prompt_cache_key, first);
      await h.gateway('POST', '/v1/chat/completions', {
        token: key,
        body: { model: 'openai/gpt-mock', messages: [{ role: 'user', content: 'another conversation' }] },
      });
      assert.notEqual(openai.lastRequest()!.body.prompt_cache_key, first);
      await chat('openai/gpt-mock', 3, {}, { prompt_cache_key: 'mine' });
      assert.equal(openai.lastRequest()!.body.prompt_cache_key, 'mine', "the client's own key is kept");
    });

    it("compression's saving is priced from the upstream's cache usage and written to the usage row", async () => {
      anthropic.setScenario({
        usage: { inputTokens: 4000, cachedInputTokens: 3000, cacheCreationInputTokens: 500, outputTokens: 5 },
      });
      // The same command run twice: its second output becomes a pointer to the first.
      const dialogue = session(6);
      dialogue.turns[4]!.calls[0]!.output = dialogue.turns[1]!.calls[0]!.output;
      const result = await h.gateway('POST', '/v1/chat/completions', {
        token: key,
        body: { ...build(dialogue, 'chat'), model: 'anthropic/claude-mock', compression_model: 'claude' },
      });
      assert.equal(result.status, 200, result.text);
      const compression = result.json.compression;
      assert.ok(compression.saved_tokens > 0);
      const row = await usageRowOf(h.running.store, header(result, 'x-request-id')!);
      assert.equal(Number(row.compression_savings_micro_usd), compression.cost_savings);
      // Every removed token is worth at most the write price, at least the read price.
      assert.ok(compression.cost_savings <= Math.ceil(compression.saved_tokens * 0.1875));
      assert.ok(compression.cost_savings >= Math.floor(compression.saved_tokens * 0.075 * 0.9));
    });
  });
}
