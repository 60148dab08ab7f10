import { finishOf, modelOf, textChunksOf, textOf, usageOf, wantsText } from './scenario-helpers.js';
import { openaiHttp } from './openai-http.js';
import type { MockScenario, MockToolCall, MockWireFormat, RecordedRequest } from './types.js';

/**
 * OpenAI's Responses API (`POST /v1/responses`), JSON and SSE, as Codex reads it: every output
 * item is announced (`response.output_item.added`), streamed (text, function-call arguments or
 * custom-tool input deltas) and closed (`response.output_item.done`, the event Codex acts on);
 * `response.completed` carries the whole response with its usage.
 */
function usage(scenario: MockScenario) {
  const u = usageOf(scenario);
  return {
    input_tokens: u.inputTokens,
    input_tokens_details: { cached_tokens: u.cachedInputTokens },
    output_tokens: u.outputTokens,
    output_tokens_details: { reasoning_tokens: u.reasoningTokens },
    total_tokens: u.inputTokens + u.outputTokens,
  };
}

type OutputItem = Record<string, unknown> & { id: string; type: string };

function messageItem(text: string, status: 'in_progress' | 'completed'): OutputItem {
  return {
    id: 'msg_mock',
    type: 'message',
    status,
    role: 'assistant',
    content: status === 'completed' ? [{ type: 'output_text', text, annotations: [] }] : [],
  };
}

/** A `custom` tool (free-form input) when the call carries `input`, a function call otherwise. */
function toolItem(call: MockToolCall, i: number, done: boolean): OutputItem {
  const callId = call.id ?? `call_mock_${i}`;
  const namespace = call.namespace !== undefined ? { namespace: call.namespace } : {};
  if (call.input !== undefined)
    return {
      id: `ctc_mock_${i}`,
      type: 'custom_tool_call',
      status: done ? 'completed' : 'in_progress',
      call_id: callId,
      name: call.name,
      ...namespace,
      input: done ? call.input : '',
    };
  return {
    id: `fc_mock_${i}`,
    type: 'function_call',
    status: done ? 'completed' : 'in_progress',
    call_id: callId,
    name: call.name,
    ...namespace,
    arguments: done ? JSON.stringify(call.arguments ?? {}) : '',
  };
}

function finalOutput(scenario: MockScenario): OutputItem[] {
  return [
    ...(wantsText(scenario) ? [messageItem(textOf(scenario), 'completed')] : []),
    ...(scenario.toolCalls ?? []).map((call, i) => toolItem(call, i, true)),
  ];
}

function responseObject(scenario: MockScenario, request: RecordedRequest, final: boolean) {
  const incomplete = finishOf(scenario) === 'length';
  return {
    id: scenario.responseId ?? 'resp_mock',
    object: 'response',
    created_at: Math.floor(Date.now() / 1000),
    status: final ? (incomplete ? 'incomplete' : 'completed') : 'in_progress',
    ...(final && incomplete ? { incomplete_details: { reason: 'max_output_tokens' } } : {}),
    model: modelOf(scenario, request),
    output: final ? finalOutput(scenario) : [],
    parallel_tool_calls: request.body?.parallel_tool_calls ?? true,
    tool_choice: request.body?.tool_choice ?? 'auto',
    tools: [],
    usage: final ? usage(scenario) : null,
  };
}

export const responsesFormat: MockWireFormat = {
  name: 'openai-responses',
  ...openaiHttp,
  acceptsPath: (path) => path.split('?')[0] === '/v1/responses',
  json: (scenario, request) => responseObject(scenario, request, true),
  streamEvents(scenario, request) {
    const events: Array<{ event?: string; data: unknown }> = [];
    let sequence = 0;
    const send = (type: string, payload: object): void =>
      void events.push({ event: type, data: { type, sequence_number: sequence++, ...payload } });
    send('response.created', { response: responseObject(scenario, request, false) });
    send('response.in_progress', { response: responseObject(scenario, request, false) });
    let outputIndex = 0;
    if (wantsText(scenario)) {
      const text = textOf(scenario);
      const itemId = 'msg_mock';
      send('response.output_item.added', { output_index: outputIndex, item: messageItem(text, 'in_progress') });
      const part = { type: 'output_text', text: '', annotations: [] };
      send('response.content_part.added', { item_id: itemId, output_index: outputIndex, content_index: 0, part });
      for (const delta of textChunksOf(scenario))
        send('response.output_text.delta', { item_id: itemId, output_index: outputIndex, content_index: 0, delta });
      send('response.output_text.done', { item_id: itemId, output_index: outputIndex, content_index: 0, text });
      send('response.content_part.done', {
        item_id: itemId,
        output_index: outputIndex,
        content_index: 0,
        part: { ...part, text },
      });
      send('response.output_item.done', { output_index: outputIndex, item: messageItem(text, 'completed') });
      outputIndex++;
    }
    for (const [i, call] of (scenario.toolCalls ?? []).entries()) {
      const done = toolItem(call, i, true);
      send('response.output_item.added', { output_index: outputIndex, item: toolItem(call, i, false) });
      const whole = String(done.type === 'custom_tool_call' ? done.input : done.arguments);
      const half = Math.ceil(whole.length / 2);
      const kind = done.type === 'custom_tool_call' ? 'custom_tool_call_input' : 'function_call_arguments';
      for (const delta of [whole.slice(0, half), whole.slice(half)])
        send(`response.${kind}.delta`, { item_id: done.id, output_index: outputIndex, delta });
      send(`response.${kind}.done`, {
        item_id: done.id,
        output_index: outputIndex,
        ...(kind === 'custom_tool_call_input' ? { input: whole } : { arguments: whole }),
      });
      send('response.output_item.done', { output_index: outputIndex, item: done });
      outputIndex++;
    }
    send(finishOf(scenario) === 'length' ? 'response.incomplete' : 'response.completed', {
      response: responseObject(scenario, request, true),
    });
    return events;
  },
};
