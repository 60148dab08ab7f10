import type { FinishReason, ProviderCompletion, TokenUsage, ToolCallDelta } from '../../canonical/completion.js';

/**
 * Usage as clients see it: spec 2.4 names, plus OpenAI's own names so OpenAI SDKs read it too.
 * `input_tokens_details.cache_creation_tokens` is the public OpenAPI document's name for prompt
 * tokens written to a prompt cache (Anthropic's `cache_creation_input_tokens`); like cached
 * reads, they are part of `prompt_tokens`.
 */
export function formatUsage(usage: TokenUsage) {
  return {
    prompt_tokens: usage.inputTokens,
    completion_tokens: usage.outputTokens,
    total_tokens: usage.inputTokens + usage.outputTokens,
    input_tokens_details: {
      cached_tokens: usage.cachedInputTokens,
      cache_creation_tokens: usage.cacheCreationInputTokens,
    },
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

export function formatCompletion(
  identity: CompletionIdentity,
  completion: ProviderCompletion,
  extra: Record<string, unknown>,
) {
  const message: Record<string, unknown> = {
    role: 'assistant',
    content: completion.message.content,
    refusal: completion.message.refusal ?? null,
  };
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

export type ChunkDelta = Parameters<typeof formatChunk>[1];

/**
 * The chunks of one stream as SSE events, with the members every chunk shares (id, object,
 * created, model) serialised once per stream instead of once per chunk. `delta(d)` is
 * byte-for-byte `sseData(formatChunk(identity, d, null))`.
 */
export class ChunkFramer {
  private readonly head: string;

  constructor(identity: CompletionIdentity) {
    this.head =
      `data: {"id":${JSON.stringify(identity.id)},"object":"chat.completion.chunk",` +
      `"created":${JSON.stringify(identity.created)},"model":${JSON.stringify(identity.model)},"choices":[{"index":0,"delta":`;
  }

  delta(delta: ChunkDelta): string {
    return `${this.head}${JSON.stringify(delta)},"finish_reason":null,"logprobs":null}]}\n\n`;
  }

  /** `sseData(formatChunk(identity, {}, finishReason))`: the chunk that ends the choice. */
  finish(finishReason: FinishReason): string {
    return `${this.head}{},"finish_reason":${JSON.stringify(finishReason)},"logprobs":null}]}\n\n`;
  }

  /** `delta({ content })`, the common case, without building the delta object. */
  content(content: string): string {
    return `${this.head}{"content":${JSON.stringify(content)}},"finish_reason":null,"logprobs":null}]}\n\n`;
  }
}

/** A last chunk with no choice, for the gateway members of a stream that ended without a finish reason. */
export function formatFinalChunk(identity: CompletionIdentity) {
  return {
    id: identity.id,
    object: 'chat.completion.chunk',
    created: identity.created,
    model: identity.model,
    choices: [],
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
