import { finishOf, modelOf, textChunksOf, textOf, usageOf } from './scenario-helpers.js';
import { openaiHttp } from './openai-http.js';
import type { MockScenario, MockWireFormat } from './types.js';

function usage(scenario: MockScenario) {
  const u = usageOf(scenario);
  return {
    prompt_tokens: u.inputTokens,
    completion_tokens: u.outputTokens,
    total_tokens: u.inputTokens + u.outputTokens,
    prompt_tokens_details: { cached_tokens: u.cachedInputTokens },
    completion_tokens_details: { reasoning_tokens: u.reasoningTokens },
  };
}

function toolCalls(scenario: MockScenario) {
  return (scenario.toolCalls ?? []).map((call, i) => ({
    id: call.id ?? `call_mock_${i}`,
    type: 'function' as const,
    function: { name: call.name, arguments: JSON.stringify(call.arguments ?? {}) },
  }));
}

export const openaiFormat: MockWireFormat = {
  name: 'openai',
  ...openaiHttp,
  acceptsPath: (path) => path === '/v1/chat/completions',
  json(scenario, request) {
    const calls = toolCalls(scenario);
    const text = textOf(scenario);
    return {
      id: 'chatcmpl-mock',
      object: 'chat.completion',
      created: Math.floor(Date.now() / 1000),
      model: modelOf(scenario, request),
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: calls.length && !scenario.text ? null : text,
            ...(calls.length ? { tool_calls: calls } : {}),
            refusal: null,
          },
          finish_reason: finishOf(scenario),
        },
      ],
      usage: usage(scenario),
    };
  },
  streamEvents(scenario, request) {
    const base = {
      id: 'chatcmpl-mock',
      object: 'chat.completion.chunk',
      created: Math.floor(Date.now() / 1000),
      model: modelOf(scenario, request),
    };
    const chunk = (delta: object, finish: string | null = null) => ({
      data: { ...base, choices: [{ index: 0, delta, finish_reason: finish }] },
    });
    const events: Array<{ event?: string; data: unknown }> = [chunk({ role: 'assistant', content: '' })];
    if (!scenario.toolCalls?.length || scenario.text)
      for (const piece of textChunksOf(scenario)) events.push(chunk({ content: piece }));
    for (const [index, call] of toolCalls(scenario).entries()) {
      events.push(
        chunk({
          tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.function.name, arguments: '' } }],
        }),
      );
      const args = call.function.arguments;
      const half = Math.ceil(args.length / 2);
      events.push(chunk({ tool_calls: [{ index, function: { arguments: args.slice(0, half) } }] }));
      events.push(chunk({ tool_calls: [{ index, function: { arguments: args.slice(half) } }] }));
    }
    events.push(chunk({}, finishOf(scenario)));
    if (request.body?.stream_options?.include_usage)
      events.push({ data: { ...base, choices: [], usage: usage(scenario) } });
    if (!scenario.omitDone) events.push({ data: '[DONE]' });
    return events;
  },
};
