import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { storeKinds } from '../support/gateway-harness.js';
import {
  assertGatewayError,
  keySpend,
  rawClient,
  sseData,
  streamedText,
  usageRowOf,
  waitFor,
} from '../support/chat-kit.js';
import { MAX_GATEWAY_TOOL_ROUNDS } from '../../src/pipeline/tool-loop.js';
import { monthOf } from '../../src/limits/budget-ledger.js';
import { MODEL, WEATHER, startChatTools } from './chat-tools-fixture.js';
import { suiteFixture } from '../support/suite-fixture.js';

for (const store of storeKinds()) {
  describe(`gateway tools in chat completions: rounds, failing tools, streams and ceilings (${store})`, () => {
    const env = suiteFixture(() => startChatTools(store));

    it(`the round limit: after ${MAX_GATEWAY_TOOL_ROUNDS} rounds the model is called once more with tool_choice none and that answer is returned`, async () => {
      env.mock.reset();
      env.mock.setScenario({
        toolCalls: [{ name: 'gateway_calculator', arguments: { expression: '1+1' } }],
        usage: { inputTokens: 10, outputTokens: 1 },
      });
      const result = await env.chat({ gateway_tool_ids: ['gateway_calculator'] });
      assert.equal(result.status, 200, result.text);
      assert.equal(env.mock.requests.length, MAX_GATEWAY_TOOL_ROUNDS + 1);
      assert.equal(env.mock.requests[MAX_GATEWAY_TOOL_ROUNDS]!.body.tool_choice, 'none');
      for (let i = 0; i < MAX_GATEWAY_TOOL_ROUNDS; i++) assert.equal(env.mock.requests[i]!.body.tool_choice, undefined);
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
      env.mock.reset();
      env.mock.setScenario({ toolCalls: [{ name: 'gateway_calculator', arguments: { expression: '1+1' } }] });
      const streamed = await env.chat({ gateway_tool_ids: ['gateway_calculator'], stream: true });
      const chunks = sseData(streamed.text).filter((e) => e !== '[DONE]');
      assert.equal(env.mock.requests.length, MAX_GATEWAY_TOOL_ROUNDS + 1);
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
      env.mock.reset();
      env.mock.setScenario([
        {
          toolCalls: [
            { id: 't1', name: 'gateway_test_throws' },
            { id: 't2', name: 'gateway_test_hangs' },
            { id: 't3', name: 'gateway_calculator', arguments: { expression: '1/0' } },
          ],
        },
        { text: 'Sorry, the tools failed.' },
      ]);
      const result = await env.chat({
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
      const told = env.mock.requests[1]!.body.messages.filter((m: any) => m.role === 'tool').map((m: any) =>
        JSON.parse(m.content),
      );
      assert.deepEqual(told, [
        { error: 'the test tool failed on purpose' },
        { error: executed[1].error },
        { error: 'Division by zero.' },
      ]);
    });

    it('streaming, gateway tools only: the client sees the final answer, one finish, and summed usage with gateway_tools_executed', async () => {
      env.mock.reset();
      env.mock.setScenario([
        { toolCalls: [{ id: 'call_s', name: 'gateway_current_time' }], usage: { inputTokens: 11, outputTokens: 3 } },
        { textChunks: ['It is ', 'noon.'], usage: { inputTokens: 22, outputTokens: 4 } },
      ]);
      const result = await env.chat({
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
      assert.equal(env.mock.requests.length, 2);
      assert.equal(env.mock.requests[1]!.body.messages.at(-1).tool_call_id, 'call_s');
      const row = await usageRowOf(env.h.running.store, String(result.headers['x-request-id']));
      assert.deepEqual([Number(row.input_tokens), Number(row.output_tokens), row.stream], [33, 7, 1]);
    });

    it('streaming, mixed calls: the client receives its own tool-call deltas (re-indexed) and the pending id on the finish chunk', async () => {
      env.mock.reset();
      env.mock.setScenario([
        {
          toolCalls: [
            { id: 'g1', name: 'gateway_current_time' },
            { id: 'c1', name: 'get_weather', arguments: { city: 'Oslo' } },
          ],
        },
        { text: 'Cold.' },
      ]);
      const result = await env.chat({ tools: [WEATHER], gateway_tool_ids: ['gateway_current_time'], stream: true });
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
      assert.equal(env.mock.requests.length, 1);

      const resumed = await env.chat({
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
        env.mock.requests[1]!.body.messages.slice(2).map((m: any) => m.tool_call_id),
        ['g1', 'c1'],
      );
    });

    it('streaming: a client that leaves during a later round aborts that upstream call and is metered 499 with the rounds so far', async () => {
      env.mock.reset();
      env.mock.setScenario([
        { toolCalls: [{ id: 'call_a', name: 'gateway_current_time' }], usage: { inputTokens: 25, outputTokens: 5 } },
        { hangBeforeHeadersMs: Infinity },
      ]);
      const raw = rawClient(env.h.running.urls.gateway, env.h.ca);
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
          { token: env.key.key, signal: controller.signal },
        );
        assert.equal(response.statusCode, 200);
        const requestId = String(response.headers['x-request-id']);
        await waitFor(() => env.mock.requests.length === 2, { what: 'the second round upstream' });
        controller.abort();
        await response.body.text().catch(() => undefined);
        await env.mock.requests[1]!.closed;
        const row = await usageRowOf(env.h.running.store, requestId);
        assert.equal(row.status_code, 499);
        assert.equal(row.error_code, 'client_closed');
        assert.ok(Number(row.input_tokens) > 25, 'the first call plus the estimated prompt of the aborted one');
        assert.equal(Number(row.output_tokens), 5);
      } finally {
        await raw.close();
      }
    });

    it('a key ceiling: each extra round reserves its own worst case; one that does not fit ends with 429, the calls made are metered', async () => {
      const ceilingKey = await env.h.createKey(env.org, { name: 'capped', max_usage: 1 });
      // $1 ceiling, $0.999 already spent: room for one call with max_tokens 1000 (~$0.0006), not two.
      await env.h.running.store.db
        .insertInto('key_spend')
        .values({
          api_key_id: ceilingKey.id,
          month: monthOf(Date.now()),
          spent_micro_usd: 999_000,
          reserved_micro_usd: 0,
        })
        .execute();
      env.mock.reset();
      env.mock.setScenario([
        { toolCalls: [{ name: 'gateway_current_time' }], usage: { inputTokens: 100, outputTokens: 10 } },
        { text: 'never' },
      ]);
      const result = await env.chat({ gateway_tool_ids: ['gateway_current_time'], max_tokens: 1000 }, ceilingKey.key);
      assertGatewayError(result, { status: 429, code: 'usage_limit_exceeded' });
      assert.equal(env.mock.requests.length, 1);
      const row = await usageRowOf(env.h.running.store, String(result.headers['x-request-id']));
      assert.equal(row.status_code, 429);
      assert.equal(Number(row.input_tokens), 100);
      const spend = await waitFor(
        async () => {
          const s = await keySpend(env.h.running.store, ceilingKey.id);
          return s.reserved === 0 ? s : undefined;
        },
        { what: 'reservations released' },
      );
      assert.equal(spend.spent, 999_000 + Math.round(100 * 0.15 + 10 * 0.6));
    });
  });
}
