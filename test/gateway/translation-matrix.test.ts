import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { sseData, parseSse } from '../support/chat-kit.js';
import { startThreeUpstreams, MODEL_OF, type ThreeUpstreams, type UpstreamName } from '../support/three-upstreams.js';

/**
 * {chat, messages, responses} endpoint × {openai, anthropic, gemini} upstream × {JSON, stream}
 * × {text, tool use}: every combination gives the same text, tool call, stop reason and usage,
 * each in the endpoint's own wire format.
 */

type Case = 'text' | 'tool';
interface Outcome {
  text: string;
  tool?: { name: string; args: unknown; id: string };
  stop: 'stop' | 'tool' | 'length';
  usage: { input: number; cached: number; output: number };
}

const USAGE = { inputTokens: 20, outputTokens: 5, cachedInputTokens: 4 };
const WEATHER_SCHEMA = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] };

interface Endpoint {
  path: string;
  body(model: string, stream: boolean, kase: Case): Record<string, unknown>;
  /** Reads the JSON body or the SSE text into the common outcome, checking the wire format on the way. */
  read(stream: boolean, text: string): Outcome;
}

const chat: Endpoint = {
  path: '/v1/chat/completions',
  body: (model, stream, kase) => ({
    model,
    messages: [{ role: 'user', content: kase === 'tool' ? 'Weather in Paris?' : 'Hi' }],
    ...(kase === 'tool'
      ? { tools: [{ type: 'function', function: { name: 'get_weather', parameters: WEATHER_SCHEMA } }] }
      : {}),
    ...(stream ? { stream: true, stream_options: { include_usage: true } } : {}),
  }),
  read(stream, text) {
    if (!stream) {
      const body = JSON.parse(text);
      assert.equal(body.object, 'chat.completion');
      const message = body.choices[0].message;
      const call = message.tool_calls?.[0];
      return {
        text: message.content ?? '',
        ...(call ? { tool: { name: call.function.name, args: JSON.parse(call.function.arguments), id: call.id } } : {}),
        stop: finish(body.choices[0].finish_reason),
        usage: {
          input: body.usage.prompt_tokens,
          cached: body.usage.prompt_tokens_details.cached_tokens,
          output: body.usage.completion_tokens,
        },
      };
    }
    const events = sseData(text);
    assert.equal(events.at(-1), '[DONE]');
    const chunks = events.filter((e) => e !== '[DONE]');
    let content = '';
    let name = '';
    let args = '';
    let id = '';
    let reason = '';
    for (const chunk of chunks) {
      const choice = chunk.choices[0];
      if (!choice) continue;
      content += choice.delta.content ?? '';
      for (const call of choice.delta.tool_calls ?? []) {
        id ||= call.id ?? '';
        name += call.function?.name ?? '';
        args += call.function?.arguments ?? '';
      }
      reason = choice.finish_reason ?? reason;
    }
    const usage = chunks.at(-1).usage;
    return {
      text: content,
      ...(name ? { tool: { name, args: JSON.parse(args), id } } : {}),
      stop: finish(reason),
      usage: {
        input: usage.prompt_tokens,
        cached: usage.prompt_tokens_details.cached_tokens,
        output: usage.completion_tokens,
      },
    };
  },
};

const messages: Endpoint = {
  path: '/v1/messages',
  body: (model, stream, kase) => ({
    model,
    max_tokens: 256,
    messages: [{ role: 'user', content: kase === 'tool' ? 'Weather in Paris?' : 'Hi' }],
    ...(kase === 'tool'
      ? { tools: [{ name: 'get_weather', description: 'Weather', input_schema: WEATHER_SCHEMA }] }
      : {}),
    ...(stream ? { stream: true } : {}),
  }),
  read(stream, text) {
    let message: any;
    if (!stream) message = JSON.parse(text);
    else {
      const events = parseSse(text);
      for (const e of events) assert.equal(JSON.parse(e.data).type, e.event, 'data.type repeats the event name');
      const names = events.map((e) => e.event);
      assert.equal(names[0], 'message_start');
      assert.equal(names.at(-1), 'message_stop');
      assert.equal(names.at(-2), 'message_delta');
      message = accumulateAnthropic(events.map((e) => JSON.parse(e.data)));
    }
    assert.equal(message.type, 'message');
    assert.match(message.id, /^msg_/);
    const textBlocks = message.content.filter((b: any) => b.type === 'text');
    const toolUse = message.content.find((b: any) => b.type === 'tool_use');
    const stop = { end_turn: 'stop', tool_use: 'tool', max_tokens: 'length' }[
      message.stop_reason as string
    ] as Outcome['stop'];
    assert.ok(stop, `stop_reason ${message.stop_reason}`);
    return {
      text: textBlocks.map((b: any) => b.text).join(''),
      ...(toolUse ? { tool: { name: toolUse.name, args: toolUse.input, id: toolUse.id } } : {}),
      stop,
      usage: {
        input:
          message.usage.input_tokens +
          message.usage.cache_read_input_tokens +
          message.usage.cache_creation_input_tokens,
        cached: message.usage.cache_read_input_tokens,
        output: message.usage.output_tokens,
      },
    };
  },
};

const responses: Endpoint = {
  path: '/v1/responses',
  body: (model, stream, kase) => ({
    model,
    input: kase === 'tool' ? 'Weather in Paris?' : 'Hi',
    ...(kase === 'tool' ? { tools: [{ type: 'function', name: 'get_weather', parameters: WEATHER_SCHEMA }] } : {}),
    ...(stream ? { stream: true } : {}),
  }),
  read(stream, text) {
    let response: any;
    if (!stream) response = JSON.parse(text);
    else {
      const events = parseSse(text);
      const data = events.map((e) => JSON.parse(e.data));
      data.forEach((d, i) => {
        assert.equal(d.type, events[i]!.event);
        assert.equal(d.sequence_number, i, 'sequence numbers count up from 0');
      });
      assert.deepEqual(
        data.slice(0, 2).map((d) => d.type),
        ['response.created', 'response.in_progress'],
      );
      const last = data.at(-1);
      assert.equal(last.type, 'response.completed');
      // The deltas add up to what the final response says.
      const deltas = data
        .filter((d) => d.type === 'response.output_text.delta')
        .map((d) => d.delta)
        .join('');
      assert.equal(deltas, last.response.output_text);
      response = last.response;
    }
    assert.equal(response.object, 'response');
    assert.match(response.id, /^resp_/);
    const message = response.output.find((o: any) => o.type === 'message');
    const call = response.output.find((o: any) => o.type === 'function_call');
    const outputText = message ? message.content.map((c: any) => c.text).join('') : '';
    assert.equal(response.output_text, outputText);
    return {
      text: outputText,
      ...(call ? { tool: { name: call.name, args: JSON.parse(call.arguments), id: call.call_id } } : {}),
      stop: response.status === 'incomplete' ? 'length' : call ? 'tool' : 'stop',
      usage: {
        input: response.usage.input_tokens,
        cached: response.usage.input_tokens_details.cached_tokens,
        output: response.usage.output_tokens,
      },
    };
  },
};

function finish(reason: string): Outcome['stop'] {
  return reason === 'tool_calls' ? 'tool' : reason === 'length' ? 'length' : 'stop';
}

/** What an Anthropic SDK does with the stream events: rebuilds the message. */
function accumulateAnthropic(events: any[]): any {
  const message = { ...events[0].message, content: [] as any[] };
  const json: string[] = [];
  for (const e of events.slice(1)) {
    if (e.type === 'content_block_start') {
      assert.equal(e.index, message.content.length, 'blocks are numbered in order');
      message.content.push({ ...e.content_block });
      json[e.index] = '';
    } else if (e.type === 'content_block_delta') {
      const block = message.content[e.index];
      if (e.delta.type === 'text_delta') block.text += e.delta.text;
      else if (e.delta.type === 'input_json_delta') json[e.index] += e.delta.partial_json;
    } else if (e.type === 'content_block_stop') {
      const block = message.content[e.index];
      if (block.type === 'tool_use') block.input = json[e.index] ? JSON.parse(json[e.index]!) : {};
    } else if (e.type === 'message_delta') {
      message.stop_reason = e.delta.stop_reason;
      message.usage = { ...message.usage, ...e.usage };
    }
  }
  return message;
}

describe('translation matrix: endpoint × upstream × JSON/stream × text/tool', () => {
  let env: ThreeUpstreams;
  before(async () => {
    env = await startThreeUpstreams();
  });
  after(async () => {
    await env.stop();
  });

  for (const endpoint of [chat, messages, responses]) {
    for (const upstream of ['openai', 'anthropic', 'gemini'] as UpstreamName[]) {
      for (const stream of [false, true]) {
        for (const kase of ['text', 'tool'] as Case[]) {
          it(`${endpoint.path} → ${upstream}, ${stream ? 'stream' : 'JSON'}, ${kase}`, async () => {
            const mock = env.mocks[upstream];
            mock.setScenario(
              kase === 'text'
                ? { textChunks: ['Sunny ', 'and ', 'warm'], usage: USAGE }
                : { toolCalls: [{ id: 'call_w1', name: 'get_weather', arguments: { city: 'Paris' } }], usage: USAGE },
            );
            const result = await env.h.gateway('POST', endpoint.path, {
              token: env.key.key,
              body: endpoint.body(MODEL_OF[upstream], stream, kase),
            });
            assert.equal(result.status, 200, result.text.slice(0, 400));
            assert.match(String(result.headers['content-type']), stream ? /text\/event-stream/ : /application\/json/);
            const outcome = endpoint.read(stream, result.text);
            if (kase === 'text') {
              assert.equal(outcome.text, 'Sunny and warm');
              assert.equal(outcome.tool, undefined);
              assert.equal(outcome.stop, 'stop');
            } else {
              assert.equal(outcome.tool?.name, 'get_weather');
              assert.deepEqual(outcome.tool?.args, { city: 'Paris' });
              assert.ok(outcome.tool?.id, 'the call has an id to answer');
              assert.equal(outcome.stop, 'tool');
            }
            assert.deepEqual(outcome.usage, { input: 20, cached: 4, output: 5 });
            // The upstream was asked in its own format, with the tool when there was one.
            const sent = mock.lastRequest()!;
            assert.match(sent.rawBody, kase === 'tool' ? /get_weather/ : /Hi/);
          });
        }
      }
    }
  }
});
