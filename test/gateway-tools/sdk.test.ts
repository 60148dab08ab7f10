import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Agent } from 'undici';
import OpenAI from 'openai';
import type {
  ChatCompletionCreateParamsNonStreaming,
  ChatCompletionMessageParam,
  ChatCompletionTool,
} from 'openai/resources/chat/completions';
import { startHarness, type Harness } from '../support/gateway-harness.js';
import { startMockOpenAI, type MockUpstream } from '../support/mock-upstreams/index.js';
import { PRICING } from '../support/chat-kit.js';
import { openaiClient, trustingDispatcher } from '../support/sdk-clients.js';
import { configureGatewayTool } from './chat-tools-fixture.js';

const MODEL = 'openai/gpt-4o-mini';

/** The gateway's own request members ride along as extra body fields; the SDK sends them as given. */
type WithGatewayFields<T> = T & { gateway_tool_ids?: string[]; gateway_pending_id?: string };
interface GatewayMembers {
  gateway_pending_id?: string;
  gateway_tools_executed?: Array<{ name: string; success: boolean; call_id: string; duration_ms: number }>;
}

describe('acceptance: the official openai SDK with gateway tools', () => {
  let h: Harness;
  let mock: MockUpstream;
  let client: OpenAI;
  let dispatcher: Agent;

  before(async () => {
    mock = await startMockOpenAI({ apiKey: 'sk-mock' });
    h = await startHarness({
      config: {
        providers: [{ id: 'mock', kind: 'openai', base_url: mock.baseUrl, api_key_env: 'MOCK_KEY' }],
        models: [{ id: MODEL, providers: [{ provider: 'mock', model: 'gpt-4o-mini' }], pricing: PRICING }],
      },
      env: { MOCK_KEY: 'sk-mock' },
    });
    const org = await h.organization();
    const key = await h.createKey(org);
    for (const id of ['gateway_current_time', 'gateway_calculator'])
      await configureGatewayTool(h, org, id, { active: true });
    dispatcher = trustingDispatcher(h);
    client = openaiClient(h, key.key, dispatcher);
  });
  after(async () => {
    await h.stop();
    await dispatcher.close();
    await mock.close();
  });

  it('the model calls gateway_current_time inline; the SDK gets the final answer', async () => {
    mock.reset();
    mock.setScenario([
      {
        toolCalls: [{ id: 'call_now', name: 'gateway_current_time', arguments: { timezone: 'Asia/Tokyo' } }],
        usage: { inputTokens: 40, outputTokens: 9 },
      },
      { text: 'In Tokyo it is evening.', usage: { inputTokens: 70, outputTokens: 6 } },
    ]);
    const params: WithGatewayFields<ChatCompletionCreateParamsNonStreaming> = {
      model: MODEL,
      messages: [{ role: 'user', content: 'What time is it in Tokyo?' }],
      gateway_tool_ids: ['gateway_current_time'],
    };
    const completion = (await client.chat.completions.create(params)) as OpenAI.ChatCompletion & GatewayMembers;
    assert.equal(completion.choices[0]!.message.content, 'In Tokyo it is evening.');
    assert.equal(completion.choices[0]!.finish_reason, 'stop');
    assert.equal(completion.usage!.prompt_tokens, 110);
    assert.equal(completion.usage!.completion_tokens, 15);
    assert.deepEqual(
      completion.gateway_tools_executed!.map((e) => [e.name, e.success, e.call_id]),
      [['gateway_current_time', true, 'call_now']],
    );
    const toolMessage = mock.requests[1]!.body.messages.at(-1);
    assert.equal(JSON.parse(toolMessage.content).timezone, 'Asia/Tokyo');

    // The same through the SDK's streaming helper.
    mock.reset();
    mock.setScenario([
      { toolCalls: [{ id: 'call_now2', name: 'gateway_current_time' }] },
      { textChunks: ['It is ', 'late.'] },
    ]);
    const stream = client.chat.completions.stream({
      model: MODEL,
      messages: [{ role: 'user', content: 'Time?' }],
      gateway_tool_ids: ['gateway_current_time'],
    } as never);
    const final = await stream.finalChatCompletion();
    assert.equal(final.choices[0]!.message.content, 'It is late.');
    assert.equal(final.choices[0]!.message.tool_calls?.length ?? 0, 0);
  });

  it('a mixed call: the SDK runs its own tool and resumes with gateway_pending_id', async () => {
    mock.reset();
    mock.setScenario([
      {
        toolCalls: [
          { id: 'call_calc', name: 'gateway_calculator', arguments: { expression: '19.99 * 3' } },
          { id: 'call_stock', name: 'check_stock', arguments: { sku: 'A-1' } },
        ],
      },
      { text: 'Three cost 59.97 and 12 are in stock.' },
    ]);
    const tools: ChatCompletionTool[] = [
      {
        type: 'function',
        function: {
          name: 'check_stock',
          parameters: { type: 'object', properties: { sku: { type: 'string' } }, required: ['sku'] },
        },
      },
    ];
    const messages: ChatCompletionMessageParam[] = [{ role: 'user', content: 'Price of three A-1, and stock?' }];
    const first = (await client.chat.completions.create({
      model: MODEL,
      messages,
      tools,
      gateway_tool_ids: ['gateway_calculator'],
    } as WithGatewayFields<ChatCompletionCreateParamsNonStreaming>)) as OpenAI.ChatCompletion & GatewayMembers;
    const message = first.choices[0]!.message;
    assert.equal(first.choices[0]!.finish_reason, 'tool_calls');
    assert.deepEqual(
      message.tool_calls!.map((c) => c.type === 'function' && c.function.name),
      ['check_stock'],
    );
    assert.ok(first.gateway_pending_id);
    assert.deepEqual(
      first.gateway_tools_executed!.map((e) => e.name),
      ['gateway_calculator'],
    );

    // The application runs its tool, as it would for any tool call.
    messages.push(message, { role: 'tool', tool_call_id: message.tool_calls![0]!.id, content: '{"in_stock":12}' });
    const second = await client.chat.completions.create({
      model: MODEL,
      messages,
      tools,
      gateway_tool_ids: ['gateway_calculator'],
      gateway_pending_id: first.gateway_pending_id,
    } as WithGatewayFields<ChatCompletionCreateParamsNonStreaming>);
    assert.equal(second.choices[0]!.message.content, 'Three cost 59.97 and 12 are in stock.');
    const upstream = mock.requests[1]!.body.messages;
    assert.deepEqual(
      upstream[1].tool_calls.map((c: any) => c.id),
      ['call_calc', 'call_stock'],
    );
    assert.deepEqual(
      upstream.slice(2).map((m: any) => m.tool_call_id),
      ['call_calc', 'call_stock'],
    );
    assert.equal(JSON.parse(upstream[2].content).result, 59.97);

    // A pending id the gateway never issued is refused with the documented code and param.
    await assert.rejects(
      client.chat.completions.create({
        model: MODEL,
        messages,
        tools,
        gateway_pending_id: 'gwp_forged',
      } as WithGatewayFields<ChatCompletionCreateParamsNonStreaming>),
      (error: unknown) =>
        error instanceof OpenAI.BadRequestError &&
        error.code === 'invalid_request' &&
        error.param === 'gateway_pending_id',
    );
  });
});
