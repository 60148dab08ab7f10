import type { ToolCall } from '../../canonical/chat-request.js';
import type { ProviderCompletion } from '../../canonical/completion.js';
import { malformed } from '../shared/upstream-errors.js';
import { isRecord } from '../shared/usage.js';
import { convertAnthropicUsage } from './convert-usage.js';
import { mapAnthropicStopReason } from './map-stop-reason.js';
import type { AnthropicResponse } from './wire.js';

export function convertAnthropicResponse(body: unknown): ProviderCompletion {
  if (!isRecord(body) || !Array.isArray(body.content)) throw malformed('anthropic response has no content array');
  const response = body as AnthropicResponse;
  let text = '';
  let sawText = false;
  const toolCalls: ToolCall[] = [];
  for (const block of response.content ?? []) {
    if (!isRecord(block)) continue;
    if (block.type === 'text' && typeof block.text === 'string') {
      text += block.text;
      sawText = true;
    } else if (block.type === 'tool_use') {
      toolCalls.push({
        id: typeof block.id === 'string' ? block.id : `toolu_${toolCalls.length}`,
        type: 'function',
        function: {
          name: typeof block.name === 'string' ? block.name : '',
          arguments: JSON.stringify(block.input ?? {}),
        },
      });
    }
    // thinking / redacted_thinking blocks are not part of the visible answer.
  }
  const completion: ProviderCompletion = {
    message: {
      role: 'assistant',
      content: sawText || toolCalls.length === 0 ? text : null,
      ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
    },
    finishReason: mapAnthropicStopReason(response.stop_reason),
    usage: convertAnthropicUsage(response.usage),
  };
  if (typeof response.id === 'string') completion.upstreamId = response.id;
  if (typeof response.model === 'string') completion.upstreamModel = response.model;
  return completion;
}
