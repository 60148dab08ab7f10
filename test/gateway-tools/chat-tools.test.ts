import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Type } from '@sinclair/typebox';
import { startHarness, storeKinds, type Harness } from '../support/gateway-harness.js';
import { startMockOpenAI, type MockUpstream } from '../support/mock-upstreams/index.js';
import {
  assertGatewayError,
  keySpend,
  PRICING,
  rawClient,
  sseData,
  streamedText,
  usageRowOf,
  waitFor,
} from '../support/chat-kit.js';
import { gatewayToolRegistry } from '../../src/gateway-tools/registry.js';
import { ToolFailure, type GatewayTool } from '../../src/gateway-tools/types.js';
import { MAX_GATEWAY_TOOL_ROUNDS } from '../../src/pipeline/tool-loop.js';
import { monthOf } from '../../src/limits/budget-ledger.js';

const MODEL = 'openai/gpt-4o-mini';
const WEATHER = {
  type: 'function',
  function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } },
};

/** Test-only tools, registered in this process's registry: one that throws, one that never finishes. */
const throwingTool: GatewayTool = {
  id: 'gateway_test_throws',
  description: 'Always fails (test tool).',
  parameters: Type.Object({}),
  run: () => {
    throw new ToolFailure('the test tool failed on purpose');
  },
};
const hangingTool: GatewayTool = {
  id: 'gateway_test_hangs',
  description: 'Never finishes (test tool).',
  parameters: Type.Object({}),
  timeoutMs: 100,
  run: () => new Promise(() => undefined),
};

for (const store of storeKinds()) {
  describe(`gateway tools in chat completions (${store})`, () => {
    let h: Harness;
    let mock: MockUpstream;
    let org: { id: string; token: string };
    let key: { id: string; key: string };

    before(async () => {
      gatewayToolRegistry.register(throwingTool);
      gatewayToolRegistry.register(hangingTool);
      mock = await startMockOpenAI({ apiKey: 'sk-mock' });
      h = await startHarness({
        store,
        config: {
          providers: [{ id: 'mock', kind: 'openai', base_url: mock.baseUrl, api_key_env: 'MOCK_KEY' }],
          models: [{ id: MODEL, providers: [{ provider: 'mock', model: 'gpt-4o-mini' }], pricing: PRICING }],
        },
        env: { MOCK_KEY: 'sk-mock' },
      });
      org = await h.organization();
      key = await h.createKey(org);
      for (const id of ['gateway_current_time', 'gateway_calculator', 'gateway_test_throws', 'gateway_test_hangs'])
        await configure(org, id, { active: true });
    });
    after(async () => {
      await h.stop();
      await mock.close();
      gatewayToolRegistry.unregister(throwingTool.id);
      gatewayToolRegistry.unregister(hangingTool.id);
    });

    async function configure(o: { id: string; token: string }, toolId: string, body: Record<string, unknown>) {
      const result = await h.console('POST', `/v1/organizations/${o.id}/gateway_tools/${toolId}`, {
        token: o.token,
        body,
      });
      assert.equal(result.status, 200, result.text);
      return result.json;
    }
    const chat = (body: Record<string, unknown>, token = key.key) =>
      h.gateway('POST', '/v1/chat/completions', {
        token,
        body: { model: MODEL, messages: [{ role: 'user', content: 'What time is it?' }], ...body },
      });

    it('only gateway tool calls: runs them inline, calls the model again, sums usage into one usage row', async () => {
      mock.reset();
      mock.setScenario([
        {
          toolCalls: [{ id: 'call_time', name: 'gateway_current_time', arguments: { timezone: 'Europe/Paris' } }],
          usage: { inputTokens: 50, outputTokens: 7 },
        },
        { text: 'It is noon in Paris.', usage: { inputTokens: 80, outputTokens: 6, cachedInputTokens: 40 } },
      ]);
      const result = await chat({ gateway_tool_ids: ['gateway_current_time'] });
      assert.equal(result.status, 200, result.text);
      const body = result.json;
      assert.equal(body.choices[0].message.content, 'It is noon in Paris.');
      assert.equal(body.choices[0].finish_reason, 'stop');
      assert.equal(body.choices[0].message.tool_calls, undefined);
      assert.equal(body.gateway_pending_id, undefined);
      assert.equal(body.gateway_tools_executed.length, 1);
      const executed = body.gateway_tools_executed[0];
      assert.equal(executed.name, 'gateway_current_time');
      assert.equal(executed.success, true);
      assert.equal(executed.call_id, 'call_time');
      assert.equal(typeof executed.duration_ms, 'number');
      assert.deepEqual(
        [body.usage.prompt_tokens, body.usage.completion_tokens, body.usage.total_tokens],
        [130, 13, 143],
      );
      assert.equal(body.usage.input_tokens_details.cached_tokens, 40);

      assert.equal(mock.requests.length, 2);
      const first = mock.requests[0]!.body;
      const injected = first.tools.find((t: any) => t.function.name === 'gateway_current_time');
      assert.equal(injected.type, 'function');
      assert.equal(injected.function.parameters.type, 'object');
      assert.ok(injected.function.parameters.properties.timezone);
      assert.equal(first.gateway_tool_ids, undefined, 'gateway fields never reach the provider');
      const second = mock.requests[1]!.body.messages;
      assert.equal(second.length, 3);
      assert.deepEqual(
        second[1].tool_calls.map((c: any) => [c.id, c.function.name]),
        [['call_time', 'gateway_current_time']],
      );
      assert.equal(second[2].role, 'tool');
      assert.equal(second[2].tool_call_id, 'call_time');
      const toolResult = JSON.parse(second[2].content);
      assert.equal(toolResult.timezone, 'Europe/Paris');
      assert.match(toolResult.local, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d\d:\d\d$/);

      const row = await usageRowOf(h.running.store, String(result.headers['x-request-id']));
      assert.equal(Number(row.input_tokens), 130);
      assert.equal(Number(row.output_tokens), 13);
      assert.equal(Number(row.cached_input_tokens), 40);
      assert.equal(row.status_code, 200);
      // 90 uncached × 0.15 + 40 cached × 0.075 + 13 × 0.6 micro-USD
      assert.equal(Number(row.cost_micro_usd), Math.round(90 * 0.15 + 40 * 0.075 + 13 * 0.6));
    });

    it('invalid and non-activated gateway_tool_ids: 400 invalid_gateway_tool_ids listing each bad id', async () => {
      mock.reset();
      const result = await chat({
        gateway_tool_ids: ['gateway_current_time', 'gateway_nope', 'gateway_generate_uuid'],
      });
      const error = assertGatewayError(result, {
        status: 400,
        code: 'invalid_gateway_tool_ids',
        param: 'gateway_tool_ids',
        type: 'invalid_request_error',
      });
      assert.match(error.message, /"gateway_nope"/);
      assert.match(error.message, /"gateway_generate_uuid"/);
      assert.doesNotMatch(error.message, /gateway_current_time/);
      assert.equal(mock.requests.length, 0);
    });

    it('a tool activated for other keys only is not activated for this key', async () => {
      const o = await h.organization();
      const allowed = await h.createKey(o);
      const other = await h.createKey(o);
      await configure(o, 'gateway_calculator', { active: true, active_key_ids: [allowed.id] });
      mock.reset();
      mock.setScenario({ text: 'ok' });
      assert.equal((await chat({ gateway_tool_ids: ['gateway_calculator'] }, allowed.key)).status, 200);
      assertGatewayError(await chat({ gateway_tool_ids: ['gateway_calculator'] }, other.key), {
        status: 400,
        code: 'invalid_gateway_tool_ids',
        param: 'gateway_tool_ids',
      });
    });

    it('a client tool with a gateway tool name is refused', async () => {
      const result = await chat({
        gateway_tool_ids: ['gateway_current_time'],
        tools: [{ type: 'function', function: { name: 'gateway_current_time' } }],
      });
      assertGatewayError(result, { status: 400, code: 'invalid_request', param: 'tools' });
    });

    it('hydration: with gateway_tool_ids omitted or empty, only hydrated tools are injected (organization-wide or per key)', async () => {
      const o = await h.organization();
      const hydratedKey = await h.createKey(o);
      const plainKey = await h.createKey(o);
      await configure(o, 'gateway_current_time', { active: true, hydrate_key_ids: [hydratedKey.id] });
      await configure(o, 'gateway_calculator', { active: true });
      mock.reset();
      mock.setScenario({ text: 'ok' });
      const names = () => (mock.lastRequest()!.body.tools ?? []).map((t: any) => t.function.name);

      assert.equal((await chat({}, hydratedKey.key)).status, 200);
      assert.deepEqual(names(), ['gateway_current_time']);
      assert.equal((await chat({ gateway_tool_ids: [] }, hydratedKey.key)).status, 200);
      assert.deepEqual(names(), ['gateway_current_time']);
      assert.equal((await chat({}, plainKey.key)).status, 200);
      assert.deepEqual(names(), []);
      // Explicit ids replace hydration.
      assert.equal(
        (await chat({ gateway_tool_ids: ['gateway_calculator'], tools: [WEATHER] }, hydratedKey.key)).status,
        200,
      );
      assert.deepEqual(names(), ['get_weather', 'gateway_calculator']);

      await configure(o, 'gateway_calculator', { hydrate: true });
      assert.equal((await chat({}, plainKey.key)).status, 200);
      assert.deepEqual(names(), ['gateway_calculator']);
      // Deactivation stops hydration too.
      await configure(o, 'gateway_calculator', { active: false });
      assert.equal((await chat({}, plainKey.key)).status, 200);
      assert.deepEqual(names(), []);
    });

    it('mixed gateway and client calls: defers, returns only the client call and a pending id, then resumes in order', async () => {
      mock.reset();
      mock.setScenario([
        {
          toolCalls: [
            { id: 'call_g1', name: 'gateway_calculator', arguments: { expression: '6 * 7' } },
            { id: 'call_c1', name: 'get_weather', arguments: { city: 'Paris' } },
            { id: 'call_g2', name: 'gateway_current_time', arguments: {} },
          ],
          usage: { inputTokens: 20, outputTokens: 10 },
        },
        { text: 'Sunny, 42, and it is noon.', usage: { inputTokens: 60, outputTokens: 8 } },
      ]);
      const tools = [WEATHER];
      const messages = [{ role: 'user', content: 'Weather, 6*7 and time?' }];
      const first = await chat({ messages, tools, gateway_tool_ids: ['gateway_calculator', 'gateway_current_time'] });
      assert.equal(first.status, 200, first.text);
      const choice = first.json.choices[0];
      assert.equal(choice.finish_reason, 'tool_calls');
      assert.deepEqual(
        choice.message.tool_calls.map((c: any) => c.id),
        ['call_c1'],
      );
      assert.match(first.json.gateway_pending_id, /^gwp_[A-Za-z0-9_-]{32}$/);
      assert.deepEqual(
        first.json.gateway_tools_executed.map((e: any) => [e.call_id, e.success]),
        [
          ['call_g1', true],
          ['call_g2', true],
        ],
      );
      assert.equal(mock.requests.length, 1, 'a deferred turn makes no second upstream call');
      assert.equal(first.json.usage.prompt_tokens, 20);

      const resumed = await chat({
        tools,
        gateway_tool_ids: ['gateway_calculator', 'gateway_current_time'],
        gateway_pending_id: first.json.gateway_pending_id,
        messages: [...messages, choice.message, { role: 'tool', tool_call_id: 'call_c1', content: '{"sky":"sunny"}' }],
      });
      assert.equal(resumed.status, 200, resumed.text);
      assert.equal(resumed.json.choices[0].message.content, 'Sunny, 42, and it is noon.');
      const upstreamMessages = mock.requests[1]!.body.messages;
      assert.deepEqual(
        upstreamMessages[1].tool_calls.map((c: any) => c.id),
        ['call_g1', 'call_c1', 'call_g2'],
      );
      assert.deepEqual(
        upstreamMessages.slice(2).map((m: any) => [m.role, m.tool_call_id]),
        [
          ['tool', 'call_g1'],
          ['tool', 'call_c1'],
          ['tool', 'call_g2'],
        ],
      );
      assert.deepEqual(JSON.parse(upstreamMessages[2].content), { expression: '6 * 7', result: 42 });
      assert.equal(upstreamMessages[3].content, '{"sky":"sunny"}');
      assert.ok(JSON.parse(upstreamMessages[4].content).utc);

      // Reusable until it expires: a retry with the same id is filled in the same way.
      const again = await chat({
        tools,
        gateway_pending_id: first.json.gateway_pending_id,
        messages: [...messages, choice.message, { role: 'tool', tool_call_id: 'call_c1', content: '{"sky":"sunny"}' }],
      });
      assert.equal(again.status, 200, again.text);
      assert.deepEqual(
        mock.requests[2]!.body.messages.slice(2).map((m: any) => m.tool_call_id),
        ['call_g1', 'call_c1', 'call_g2'],
      );
    });

    it('a pending id of another key, another organization, unknown or expired: 400 invalid_request on gateway_pending_id', async () => {
      mock.reset();
      mock.setScenario([
        {
          toolCalls: [
            { id: 'g', name: 'gateway_current_time' },
            { id: 'c', name: 'get_weather' },
          ],
        },
        { text: 'done' },
      ]);
      const first = await chat({ tools: [WEATHER], gateway_tool_ids: ['gateway_current_time'] });
      const pendingId = first.json.gateway_pending_id as string;
      assert.ok(pendingId);
      const resume = (token: string, id = pendingId) =>
        chat(
          {
            tools: [WEATHER],
            gateway_pending_id: id,
            messages: [
              { role: 'user', content: 'x' },
              first.json.choices[0].message,
              { role: 'tool', tool_call_id: 'c', content: 'sunny' },
            ],
          },
          token,
        );
      const sameOrgKey = await h.createKey(org);
      const otherOrg = await h.organization();
      const otherOrgKey = await h.createKey(otherOrg);
      for (const token of [sameOrgKey.key, otherOrgKey.key]) {
        assertGatewayError(await resume(token), { status: 400, code: 'invalid_request', param: 'gateway_pending_id' });
      }
      assertGatewayError(await resume(key.key, 'gwp_unknownunknownunknownunknownunkn'), {
        status: 400,
        code: 'invalid_request',
        param: 'gateway_pending_id',
      });
      // A history without the assistant message it belongs to.
      const unrelated = await chat({ tools: [WEATHER], gateway_pending_id: pendingId });
      assertGatewayError(unrelated, { status: 400, code: 'invalid_request', param: 'gateway_pending_id' });

      assert.equal((await resume(key.key)).status, 200);
      await h.running.store.db
        .updateTable('gateway_pending_operations')
        .set({ expires_at: Date.now() - 1 })
        .where('id', '=', pendingId)
        .execute();
      assertGatewayError(await resume(key.key), { status: 400, code: 'invalid_request', param: 'gateway_pending_id' });
    });

    it(`the round limit: after ${MAX_GATEWAY_TOOL_ROUNDS} rounds the model is called once more with tool_choice none and that answer is returned`, async () => {
      mock.reset();
      mock.setScenario({
        toolCalls: [{ name: 'gateway_calculator', arguments: { expression: '1+1' } }],
        usage: { inputTokens: 10, outputTokens: 1 },
      });
      const result = await chat({ gateway_tool_ids: ['gateway_calculator'] });
      assert.equal(result.status, 200, result.text);
      assert.equal(mock.requests.length, MAX_GATEWAY_TOOL_ROUNDS + 1);
      assert.equal(mock.requests[MAX_GATEWAY_TOOL_ROUNDS]!.body.tool_choice, 'none');
      for (let i = 0; i < MAX_GATEWAY_TOOL_ROUNDS; i++) assert.equal(mock.requests[i]!.body.tool_choice, undefined);
      assert.equal(result.json.gateway_tools_executed.length, MAX_GATEWAY_TOOL_ROUNDS);
      assert.deepEqual(
        result.json.gateway_tools_executed.map((e: any) => e.round),
        [1, 2, 3, 4, 5],
      );
      // This mock ignores tool_choice: its last answer still calls the tool, and is returned as it is.
      assert.equal(result.json.choices[0].finish_reason, 'tool_calls');
      assert.equal(result.json.choices[0].message.tool_calls[0].function.name, 'gateway_calculator');
      assert.equal(result.json.usage.prompt_tokens, 10 * (MAX_GATEWAY_TOOL_ROUNDS + 1));

      // Streamed the same: no delta of the rounds, then the last answer as it is, its call included.
      mock.reset();
      mock.setScenario({ toolCalls: [{ name: 'gateway_calculator', arguments: { expression: '1+1' } }] });
      const streamed = await chat({ gateway_tool_ids: ['gateway_calculator'], stream: true });
      const chunks = sseData(streamed.text).filter((e) => e !== '[DONE]');
      assert.equal(mock.requests.length, MAX_GATEWAY_TOOL_ROUNDS + 1);
      const deltas = chunks.flatMap((e) => e.choices?.[0]?.delta?.tool_calls ?? []);
      assert.deepEqual(
        deltas.filter((d: any) => d.function?.name).map((d: any) => [d.index, d.function.name]),
        [[0, 'gateway_calculator']],
      );
      const finishes = chunks.filter((e) => e.choices?.[0]?.finish_reason);
      assert.equal(finishes.length, 1);
      assert.equal(finishes[0].gateway_tools_executed.length, MAX_GATEWAY_TOOL_ROUNDS);
    });

    it('a tool that throws or times out: success false, and the model is told in the tool result', async () => {
      mock.reset();
      mock.setScenario([
        {
          toolCalls: [
            { id: 't1', name: 'gateway_test_throws' },
            { id: 't2', name: 'gateway_test_hangs' },
            { id: 't3', name: 'gateway_calculator', arguments: { expression: '1/0' } },
          ],
        },
        { text: 'Sorry, the tools failed.' },
      ]);
      const result = await chat({
        gateway_tool_ids: ['gateway_test_throws', 'gateway_test_hangs', 'gateway_calculator'],
      });
      assert.equal(result.status, 200, result.text);
      assert.equal(result.json.choices[0].message.content, 'Sorry, the tools failed.');
      const executed = result.json.gateway_tools_executed;
      assert.deepEqual(
        executed.map((e: any) => [e.name, e.success]),
        [
          ['gateway_test_throws', false],
          ['gateway_test_hangs', false],
          ['gateway_calculator', false],
        ],
      );
      assert.equal(executed[0].error, 'the test tool failed on purpose');
      assert.match(executed[1].error, /did not finish within 100 ms/);
      assert.equal(executed[2].error, 'Division by zero.');
      const told = mock.requests[1]!.body.messages.filter((m: any) => m.role === 'tool').map((m: any) =>
        JSON.parse(m.content),
      );
      assert.deepEqual(told, [
        { error: 'the test tool failed on purpose' },
        { error: executed[1].error },
        { error: 'Division by zero.' },
      ]);
    });

    it('streaming, gateway tools only: the client sees the final answer, one finish, and summed usage with gateway_tools_executed', async () => {
      mock.reset();
      mock.setScenario([
        { toolCalls: [{ id: 'call_s', name: 'gateway_current_time' }], usage: { inputTokens: 11, outputTokens: 3 } },
        { textChunks: ['It is ', 'noon.'], usage: { inputTokens: 22, outputTokens: 4 } },
      ]);
      const result = await chat({
        gateway_tool_ids: ['gateway_current_time'],
        stream: true,
        stream_options: { include_usage: true },
      });
      assert.equal(result.status, 200);
      assert.match(String(result.headers['content-type']), /text\/event-stream/);
      const events = sseData(result.text);
      assert.equal(events.at(-1), '[DONE]');
      assert.equal(streamedText(events), 'It is noon.');
      const chunks = events.filter((e) => e !== '[DONE]');
      assert.ok(
        chunks.every((e) => !e.choices?.[0]?.delta?.tool_calls),
        'no gateway tool-call delta reaches the client',
      );
      const finishes = chunks.filter((e) => e.choices?.[0]?.finish_reason);
      assert.equal(finishes.length, 1);
      assert.equal(finishes[0].choices[0].finish_reason, 'stop');
      assert.equal(finishes[0].gateway_tools_executed[0].call_id, 'call_s');
      const usageChunk = chunks.find((e) => e.usage);
      assert.deepEqual([usageChunk.usage.prompt_tokens, usageChunk.usage.completion_tokens], [33, 7]);
      assert.equal(usageChunk.gateway_tools_executed[0].name, 'gateway_current_time');
      assert.equal(mock.requests.length, 2);
      assert.equal(mock.requests[1]!.body.messages.at(-1).tool_call_id, 'call_s');
      const row = await usageRowOf(h.running.store, String(result.headers['x-request-id']));
      assert.deepEqual([Number(row.input_tokens), Number(row.output_tokens), row.stream], [33, 7, 1]);
    });

    it('streaming, mixed calls: the client receives its own tool-call deltas (re-indexed) and the pending id on the finish chunk', async () => {
      mock.reset();
      mock.setScenario([
        {
          toolCalls: [
            { id: 'g1', name: 'gateway_current_time' },
            { id: 'c1', name: 'get_weather', arguments: { city: 'Oslo' } },
          ],
        },
        { text: 'Cold.' },
      ]);
      const result = await chat({ tools: [WEATHER], gateway_tool_ids: ['gateway_current_time'], stream: true });
      const chunks = sseData(result.text).filter((e) => e !== '[DONE]');
      const deltas = chunks.flatMap((e) => e.choices?.[0]?.delta?.tool_calls ?? []);
      assert.ok(deltas.length > 0);
      assert.ok(deltas.every((d: any) => d.index === 0));
      assert.equal(deltas.find((d: any) => d.id)!.id, 'c1');
      assert.equal(deltas.map((d: any) => d.function?.arguments ?? '').join(''), '{"city":"Oslo"}');
      const finish = chunks.find((e) => e.choices?.[0]?.finish_reason);
      assert.equal(finish.choices[0].finish_reason, 'tool_calls');
      assert.match(finish.gateway_pending_id, /^gwp_/);
      assert.equal(finish.gateway_tools_executed[0].call_id, 'g1');
      assert.equal(mock.requests.length, 1);

      const resumed = await chat({
        tools: [WEATHER],
        gateway_pending_id: finish.gateway_pending_id,
        stream: true,
        messages: [
          { role: 'user', content: 'x' },
          {
            role: 'assistant',
            content: null,
            tool_calls: [
              { id: 'c1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } },
            ],
          },
          { role: 'tool', tool_call_id: 'c1', content: '-5C' },
        ],
      });
      assert.equal(streamedText(sseData(resumed.text)), 'Cold.');
      assert.deepEqual(
        mock.requests[1]!.body.messages.slice(2).map((m: any) => m.tool_call_id),
        ['g1', 'c1'],
      );
    });

    it('streaming: a client that leaves during a later round aborts that upstream call and is metered 499 with the rounds so far', async () => {
      mock.reset();
      mock.setScenario([
        { toolCalls: [{ id: 'call_a', name: 'gateway_current_time' }], usage: { inputTokens: 25, outputTokens: 5 } },
        { hangBeforeHeadersMs: Infinity },
      ]);
      const raw = rawClient(h.running.urls.gateway, h.ca);
      try {
        const controller = new AbortController();
        const response = await raw.post(
          '/v1/chat/completions',
          {
            model: MODEL,
            stream: true,
            messages: [{ role: 'user', content: 'time?' }],
            gateway_tool_ids: ['gateway_current_time'],
          },
          { token: key.key, signal: controller.signal },
        );
        assert.equal(response.statusCode, 200);
        const requestId = String(response.headers['x-request-id']);
        await waitFor(() => mock.requests.length === 2, { what: 'the second round upstream' });
        controller.abort();
        await response.body.text().catch(() => undefined);
        await mock.requests[1]!.closed;
        const row = await usageRowOf(h.running.store, requestId);
        assert.equal(row.status_code, 499);
        assert.equal(row.error_code, 'client_closed');
        assert.ok(Number(row.input_tokens) > 25, 'the first call plus the estimated prompt of the aborted one');
        assert.equal(Number(row.output_tokens), 5);
      } finally {
        await raw.close();
      }
    });

    it('a key ceiling: each extra round reserves its own worst case; one that does not fit ends with 429, the calls made are metered', async () => {
      const ceilingKey = await h.createKey(org, { name: 'capped', max_usage: 1 });
      // $1 ceiling, $0.999 already spent: room for one call with max_tokens 1000 (~$0.0006), not two.
      await h.running.store.db
        .insertInto('key_spend')
        .values({
          api_key_id: ceilingKey.id,
          month: monthOf(Date.now()),
          spent_micro_usd: 999_000,
          reserved_micro_usd: 0,
        })
        .execute();
      mock.reset();
      mock.setScenario([
        { toolCalls: [{ name: 'gateway_current_time' }], usage: { inputTokens: 100, outputTokens: 10 } },
        { text: 'never' },
      ]);
      const result = await chat({ gateway_tool_ids: ['gateway_current_time'], max_tokens: 1000 }, ceilingKey.key);
      assertGatewayError(result, { status: 429, code: 'usage_limit_exceeded' });
      assert.equal(mock.requests.length, 1);
      const row = await usageRowOf(h.running.store, String(result.headers['x-request-id']));
      assert.equal(row.status_code, 429);
      assert.equal(Number(row.input_tokens), 100);
      const spend = await waitFor(
        async () => {
          const s = await keySpend(h.running.store, ceilingKey.id);
          return s.reserved === 0 ? s : undefined;
        },
        { what: 'reservations released' },
      );
      assert.equal(spend.spent, 999_000 + Math.round(100 * 0.15 + 10 * 0.6));
    });
  });
}
