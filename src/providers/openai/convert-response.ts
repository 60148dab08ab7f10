import type { ToolCall } from '../../canonical/chat-request.js';
import type { ProviderCompletion } from '../../canonical/completion.js';
import { malformed } from '../shared/upstream-errors.js';
import { isRecord } from '../shared/usage.js';
import { convertOpenAIUsage } from './convert-usage.js';
import { mapOpenAIFinishReason } from './map-finish-reason.js';
import type { OpenAIResponse, OpenAIToolCall } from './wire.js';

function convertToolCalls(calls: OpenAIToolCall[] | null | undefined): ToolCall[] | undefined {
  if (!Array.isArray(calls) || calls.length === 0) return undefined;
  return calls.map((call, i) => ({
    id: typeof call.id === 'string' ? call.id : `call_${i}`,
    type: 'function',
    function: { name: call.function?.name ?? '', arguments: call.function?.arguments ?? '' },
  }));
}

export function convertOpenAIResponse(body: unknown): ProviderCompletion {
  if (!isRecord(body)) throw malformed('openai response is not a JSON object');
  const response = body as OpenAIResponse;
  const choice = Array.isArray(response.choices) ? response.choices[0] : undefined;
  if (!choice || !isRecord(choice.message)) throw malformed('openai response has no choices[0].message');
  const message = choice.message;
  const toolCalls = convertToolCalls(message.tool_calls);
  const completion: ProviderCompletion = {
    message: {
      role: 'assistant',
      content: typeof message.content === 'string' ? message.content : null,
      ...(toolCalls ? { tool_calls: toolCalls } : {}),
      ...(typeof message.refusal === 'string' ? { refusal: message.refusal } : {}),
    },
    finishReason: mapOpenAIFinishReason(choice.finish_reason),
    usage: convertOpenAIUsage(response.usage),
  };
  if (typeof response.id === 'string') completion.upstreamId = response.id;
  if (typeof response.model === 'string') completion.upstreamModel = response.model;
  return completion;
}
