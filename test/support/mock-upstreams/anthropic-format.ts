import { finishOf, modelOf, textChunksOf, textOf, usageOf, wantsText } from './scenario-helpers.js';
import type { MockScenario, MockWireFormat } from './types.js';

const STOP_REASON = {
  stop: 'end_turn',
  length: 'max_tokens',
  tool_calls: 'tool_use',
  content_filter: 'refusal',
} as const;

function usage(scenario: MockScenario) {
  const u = usageOf(scenario);
  return {
    input_tokens: u.inputTokens - u.cachedInputTokens - u.cacheCreationInputTokens,
    cache_read_input_tokens: u.cachedInputTokens,
    cache_creation_input_tokens: u.cacheCreationInputTokens,
    output_tokens: u.outputTokens,
  };
}

function toolUses(scenario: MockScenario) {
  return (scenario.toolCalls ?? []).map((call, i) => ({
    type: 'tool_use' as const,
    id: call.id ?? `toolu_mock_${i}`,
    name: call.name,
    input: call.arguments ?? {},
  }));
}

/** `stop_reason` / `stop_sequence` of a scenario: a `stopSequence` wins over `finishReason`. */
function stopOf(scenario: MockScenario): { stop_reason: string; stop_sequence: string | null } {
  if (scenario.stopSequence !== undefined)
    return { stop_reason: 'stop_sequence', stop_sequence: scenario.stopSequence };
  return { stop_reason: STOP_REASON[finishOf(scenario)], stop_sequence: null };
}

export const anthropicFormat: MockWireFormat = {
  name: 'anthropic',
  basePath: '/v1',
  // Claude Code appends `?beta=true` to every Messages call.
  acceptsPath: (path) => path.split('?')[0] === '/v1/messages',
  isStream: (request) => request.body?.stream === true,
  apiKeyOf: (request) => request.headers['x-api-key'] as string | undefined,
  authError: () => ({
    status: 401,
    body: { type: 'error', error: { type: 'authentication_error', message: 'invalid x-api-key' } },
  }),
  errorBody: (status, message) => ({
    type: 'error',
    error: {
      type:
        status === 429
          ? 'rate_limit_error'
          : status === 529
            ? 'overloaded_error'
            : status >= 500
              ? 'api_error'
              : 'invalid_request_error',
      message,
    },
  }),
  json(scenario, request) {
    return {
      id: 'msg_mock',
      type: 'message',
      role: 'assistant',
      model: modelOf(scenario, request),
      content: [
        ...(scenario.thinking ? [{ type: 'thinking', ...scenario.thinking }] : []),
        ...(wantsText(scenario) ? [{ type: 'text', text: textOf(scenario) }] : []),
        ...toolUses(scenario),
      ],
      ...stopOf(scenario),
      usage: usage(scenario),
    };
  },
  streamEvents(scenario, request) {
    const u = usage(scenario);
    const events: Array<{ event?: string; data: unknown }> = [];
    const send = (type: string, payload: object): void => void events.push({ event: type, data: { type, ...payload } });
    send('message_start', {
      message: {
        id: 'msg_mock',
        type: 'message',
        role: 'assistant',
        model: modelOf(scenario, request),
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { ...u, output_tokens: 1 },
      },
    });
    let index = 0;
    if (scenario.thinking) {
      send('content_block_start', { index, content_block: { type: 'thinking', thinking: '', signature: '' } });
      send('content_block_delta', { index, delta: { type: 'thinking_delta', thinking: scenario.thinking.thinking } });
      send('content_block_delta', {
        index,
        delta: { type: 'signature_delta', signature: scenario.thinking.signature },
      });
      send('content_block_stop', { index });
      index++;
    }
    if (wantsText(scenario)) {
      send('content_block_start', { index, content_block: { type: 'text', text: '' } });
      send('ping', {});
      for (const piece of textChunksOf(scenario))
        send('content_block_delta', { index, delta: { type: 'text_delta', text: piece } });
      send('content_block_stop', { index });
      index++;
    }
    for (const tool of toolUses(scenario)) {
      send('content_block_start', { index, content_block: { ...tool, input: {} } });
      const json = JSON.stringify(tool.input);
      const half = Math.ceil(json.length / 2);
      send('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: json.slice(0, half) } });
      send('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: json.slice(half) } });
      send('content_block_stop', { index });
      index++;
    }
    send('message_delta', { delta: stopOf(scenario), usage: { output_tokens: u.output_tokens } });
    send('message_stop', {});
    return events;
  },
};
