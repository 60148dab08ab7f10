import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { storeKinds } from '../support/gateway-harness.js';
import { assertGatewayError, usageRowOf } from '../support/chat-kit.js';
import { WEATHER, startChatTools } from './chat-tools-fixture.js';
import { suiteFixture } from '../support/suite-fixture.js';

for (const store of storeKinds()) {
  describe(`gateway tools in chat completions (${store})`, () => {
    const env = suiteFixture(() => startChatTools(store));

    it('only gateway tool calls: runs them inline, calls the model again, sums usage into one usage row', async () => {
      env.mock.reset();
      env.mock.setScenario([
        {
          toolCalls: [{ id: 'call_time', name: 'gateway_current_time', arguments: { timezone: 'Europe/Paris' } }],
          usage: { inputTokens: 50, outputTokens: 7 },
        },
        { text: 'It is noon in Paris.', usage: { inputTokens: 80, outputTokens: 6, cachedInputTokens: 40 } },
      ]);
      const result = await env.chat({ gateway_tool_ids: ['gateway_current_time'] });
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

      assert.equal(env.mock.requests.length, 2);
      const first = env.mock.requests[0]!.body;
      const injected = first.tools.find((t: any) => t.function.name === 'gateway_current_time');
      assert.equal(injected.type, 'function');
      assert.equal(injected.function.parameters.type, 'object');
      assert.ok(injected.function.parameters.properties.timezone);
      assert.equal(first.gateway_tool_ids, undefined, 'gateway fields never reach the provider');
      const second = env.mock.requests[1]!.body.messages;
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

      const row = await usageRowOf(env.h.running.store, String(result.headers['x-request-id']));
      assert.equal(Number(row.input_tokens), 130);
      assert.equal(Number(row.output_tokens), 13);
      assert.equal(Number(row.cached_input_tokens), 40);
      assert.equal(row.status_code, 200);
      // 90 uncached × 0.15 + 40 cached × 0.075 + 13 × 0.6 micro-USD
      assert.equal(Number(row.cost_micro_usd), Math.round(90 * 0.15 + 40 * 0.075 + 13 * 0.6));
    });

    it('invalid and non-activated gateway_tool_ids: 400 invalid_gateway_tool_ids listing each bad id', async () => {
      env.mock.reset();
      const result = await env.chat({
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
      assert.equal(env.mock.requests.length, 0);
    });

    it('a tool activated for other keys only is not activated for this key', async () => {
      const o = await env.h.organization();
      const allowed = await env.h.createKey(o);
      const other = await env.h.createKey(o);
      await env.configure(o, 'gateway_calculator', { active: true, active_key_ids: [allowed.id] });
      env.mock.reset();
      env.mock.setScenario({ text: 'ok' });
      assert.equal((await env.chat({ gateway_tool_ids: ['gateway_calculator'] }, allowed.key)).status, 200);
      assertGatewayError(await env.chat({ gateway_tool_ids: ['gateway_calculator'] }, other.key), {
        status: 400,
        code: 'invalid_gateway_tool_ids',
        param: 'gateway_tool_ids',
      });
    });

    it('a client tool with a gateway tool name is refused', async () => {
      const result = await env.chat({
        gateway_tool_ids: ['gateway_current_time'],
        tools: [{ type: 'function', function: { name: 'gateway_current_time' } }],
      });
      assertGatewayError(result, { status: 400, code: 'invalid_request', param: 'tools' });
    });

    it('hydration: with gateway_tool_ids omitted or empty, only hydrated tools are injected (organization-wide or per key)', async () => {
      const o = await env.h.organization();
      const hydratedKey = await env.h.createKey(o);
      const plainKey = await env.h.createKey(o);
      await env.configure(o, 'gateway_current_time', { active: true, hydrate_key_ids: [hydratedKey.id] });
      await env.configure(o, 'gateway_calculator', { active: true });
      env.mock.reset();
      env.mock.setScenario({ text: 'ok' });
      const names = () => (env.mock.lastRequest()!.body.tools ?? []).map((t: any) => t.function.name);

      assert.equal((await env.chat({}, hydratedKey.key)).status, 200);
      assert.deepEqual(names(), ['gateway_current_time']);
      assert.equal((await env.chat({ gateway_tool_ids: [] }, hydratedKey.key)).status, 200);
      assert.deepEqual(names(), ['gateway_current_time']);
      assert.equal((await env.chat({}, plainKey.key)).status, 200);
      assert.deepEqual(names(), []);
      // Explicit ids replace hydration.
      assert.equal(
        (await env.chat({ gateway_tool_ids: ['gateway_calculator'], tools: [WEATHER] }, hydratedKey.key)).status,
        200,
      );
      assert.deepEqual(names(), ['get_weather', 'gateway_calculator']);

      await env.configure(o, 'gateway_calculator', { hydrate: true });
      assert.equal((await env.chat({}, plainKey.key)).status, 200);
      assert.deepEqual(names(), ['gateway_calculator']);
      // Deactivation stops hydration too.
      await env.configure(o, 'gateway_calculator', { active: false });
      assert.equal((await env.chat({}, plainKey.key)).status, 200);
      assert.deepEqual(names(), []);
    });

    it('mixed gateway and client calls: defers, returns only the client call and a pending id, then resumes in order', async () => {
      env.mock.reset();
      env.mock.setScenario([
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
      const first = await env.chat({
        messages,
        tools,
        gateway_tool_ids: ['gateway_calculator', 'gateway_current_time'],
      });
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
      assert.equal(env.mock.requests.length, 1, 'a deferred turn makes no second upstream call');
      assert.equal(first.json.usage.prompt_tokens, 20);

      const resumed = await env.chat({
        tools,
        gateway_tool_ids: ['gateway_calculator', 'gateway_current_time'],
        gateway_pending_id: first.json.gateway_pending_id,
        messages: [...messages, choice.message, { role: 'tool', tool_call_id: 'call_c1', content: '{"sky":"sunny"}' }],
      });
      assert.equal(resumed.status, 200, resumed.text);
      assert.equal(resumed.json.choices[0].message.content, 'Sunny, 42, and it is noon.');
      const upstreamMessages = env.mock.requests[1]!.body.messages;
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
      const again = await env.chat({
        tools,
        gateway_pending_id: first.json.gateway_pending_id,
        messages: [...messages, choice.message, { role: 'tool', tool_call_id: 'call_c1', content: '{"sky":"sunny"}' }],
      });
      assert.equal(again.status, 200, again.text);
      assert.deepEqual(
        env.mock.requests[2]!.body.messages.slice(2).map((m: any) => m.tool_call_id),
        ['call_g1', 'call_c1', 'call_g2'],
      );
    });

    it('a pending id of another key, another organization, unknown or expired: 400 invalid_request on gateway_pending_id', async () => {
      env.mock.reset();
      env.mock.setScenario([
        {
          toolCalls: [
            { id: 'g', name: 'gateway_current_time' },
            { id: 'c', name: 'get_weather' },
          ],
        },
        { text: 'done' },
      ]);
      const first = await env.chat({ tools: [WEATHER], gateway_tool_ids: ['gateway_current_time'] });
      const pendingId = first.json.gateway_pending_id as string;
      assert.ok(pendingId);
      const resume = (token: string, id = pendingId) =>
        env.chat(
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
      const sameOrgKey = await env.h.createKey(env.org);
      const otherOrg = await env.h.organization();
      const otherOrgKey = await env.h.createKey(otherOrg);
      for (const token of [sameOrgKey.key, otherOrgKey.key]) {
        assertGatewayError(await resume(token), { status: 400, code: 'invalid_request', param: 'gateway_pending_id' });
      }
      assertGatewayError(await resume(env.key.key, 'gwp_unknownunknownunknownunknownunkn'), {
        status: 400,
        code: 'invalid_request',
        param: 'gateway_pending_id',
      });
      // A history without the assistant message it belongs to.
      const unrelated = await env.chat({ tools: [WEATHER], gateway_pending_id: pendingId });
      assertGatewayError(unrelated, { status: 400, code: 'invalid_request', param: 'gateway_pending_id' });

      assert.equal((await resume(env.key.key)).status, 200);
      await env.h.running.store.db
        .updateTable('gateway_pending_operations')
        .set({ expires_at: Date.now() - 1 })
        .where('id', '=', pendingId)
        .execute();
      assertGatewayError(await resume(env.key.key), {
        status: 400,
        code: 'invalid_request',
        param: 'gateway_pending_id',
      });
    });
  });
}
