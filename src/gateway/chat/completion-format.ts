import type { FinishReason, ProviderCompletion, TokenUsage, ToolCallDelta } from '../../providers/index.js';

/** Usage as clients see it: spec 2.4 names, plus OpenAI's own names so OpenAI SDKs read it too. */
export function formatUsage(usage: TokenUsage) {
  return {
    prompt_tokens: usage.inputTokens,
    completion_tokens: usage.outputTokens,
    total_tokens: usage.inputTokens + usage.outputTokens,
    input_tokens_details: { cached_tokens: usage.cachedInputTokens },
    output_tokens_details: { reasoning_tokens: usage.reasoningTokens },
    prompt_tokens_details: { cached_tokens: usage.cachedInputTokens },
    completion_tokens_details: { reasoning_tokens: usage.reasoningTokens },
  };
}

export interface CompletionIdentity {
  id: string;
  created: number;
  model: string;
}

export function formatCompletion(identity: CompletionIdentity, completion: ProviderCompletion, extra: Record<string, unknown>) {
  const message: Record<string, unknown> = { role: 'assistant', content: completion.message.content, refusal: completion.message.refusal ?? null };
  if (completion.message.tool_calls?.length) message.tool_calls = completion.message.tool_calls;
  return {
    id: identity.id,
    object: 'chat.completion',
    created: identity.created,
    model: identity.model,
    choices: [{ index: 0, message, finish_reason: completion.finishReason, logprobs: null }],
    usage: formatUsage(completion.usage),
    ...extra,
  };
}

export function formatChunk(
  identity: CompletionIdentity,
  delta: { role?: 'assistant'; content?: string; refusal?: string; tool_calls?: ToolCallDelta[] },
  finishReason: FinishReason | null,
) {
  return {
    id: identity.id,
    object: 'chat.completion.chunk',
    created: identity.created,
    model: identity.model,
    choices: [{ index: 0, delta, finish_reason: finishReason, logprobs: null }],
  };
}

export function formatUsageChunk(identity: CompletionIdentity, usage: TokenUsage, extra: Record<string, unknown>) {
  return {
    id: identity.id,
    object: 'chat.completion.chunk',
    created: identity.created,
    model: identity.model,
    choices: [],
    usage: formatUsage(usage),
    ...extra,
  };
}
