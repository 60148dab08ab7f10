import type { FinishReason, ProviderCompletion, TokenUsage } from '../../canonical/completion.js';

export type AnthropicStopReason = 'end_turn' | 'max_tokens' | 'stop_sequence' | 'tool_use' | 'refusal';

/**
 * A finish reason back in Anthropic's terms. `stop` becomes `end_turn`: the chat shape does not
 * say whether a stop sequence ended the turn, so `stop_sequence` is never produced.
 */
export function toAnthropicStopReason(reason: FinishReason): AnthropicStopReason {
  switch (reason) {
    case 'length':
      return 'max_tokens';
    case 'tool_calls':
    case 'function_call':
      return 'tool_use';
    case 'content_filter':
      return 'refusal';
    default:
      return 'end_turn';
  }
}

/** Anthropic's input_tokens excludes cache reads and writes; the gateway's inputTokens includes both. */
export function toAnthropicUsage(usage: TokenUsage) {
  return {
    input_tokens: Math.max(0, usage.inputTokens - usage.cachedInputTokens - usage.cacheCreationInputTokens),
    output_tokens: usage.outputTokens,
    cache_creation_input_tokens: usage.cacheCreationInputTokens,
    cache_read_input_tokens: usage.cachedInputTokens,
  };
}

/** Tool arguments arrive as a JSON string; Anthropic's `input` is an object. */
export function parseToolInput(json: string): Record<string, unknown> {
  if (json.trim() === '') return {};
  try {
    const value: unknown = JSON.parse(json);
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : { value };
  } catch {
    // A model that produced broken JSON: the client still sees what it wrote.
    return { _raw_arguments: json };
  }
}

export interface MessageIdentity {
  id: string;
  model: string;
}

/** The Messages API response object, plus the gateway's own members (compression, debug, …). */
export function formatMessage(
  identity: MessageIdentity,
  completion: ProviderCompletion,
  extras: Record<string, unknown>,
) {
  const content: Array<Record<string, unknown>> = [];
  const text = completion.message.content ?? '';
  if (text !== '') content.push({ type: 'text', text });
  for (const call of completion.message.tool_calls ?? []) {
    content.push({
      type: 'tool_use',
      id: call.id,
      name: call.function.name,
      input: parseToolInput(call.function.arguments),
    });
  }
  return {
    id: identity.id,
    type: 'message',
    role: 'assistant',
    model: identity.model,
    content,
    stop_reason: toAnthropicStopReason(completion.finishReason),
    stop_sequence: null,
    usage: toAnthropicUsage(completion.usage),
    ...extras,
  };
}
