import type { ToolCall } from './chat-request.js';

/**
 * What a model call produces, independent of the provider that answered and of the endpoint
 * that will format it: provider adapters return these, the call core meters them, and each
 * endpoint encodes them in its own wire format.
 */

export interface TokenUsage {
  inputTokens: number; // all prompt tokens, cached included
  cachedInputTokens: number; // read from a prompt cache
  cacheCreationInputTokens: number; // written to a prompt cache (Anthropic)
  outputTokens: number; // all completion tokens, reasoning included
  reasoningTokens: number;
}

export type FinishReason = 'stop' | 'length' | 'tool_calls' | 'content_filter' | 'function_call';

export interface ProviderMessage {
  role: 'assistant';
  content: string | null;
  tool_calls?: ToolCall[];
  refusal?: string | null;
}

export interface ProviderCompletion {
  upstreamId?: string;
  upstreamModel?: string;
  message: ProviderMessage;
  finishReason: FinishReason;
  usage: TokenUsage;
}

/** A tool-call fragment in a stream, OpenAI-style: the first fragment of a call carries id and name. */
export interface ToolCallDelta {
  index: number;
  id?: string;
  type?: 'function';
  function?: { name?: string; arguments?: string };
}

export type ProviderStreamEvent =
  | { type: 'delta'; content?: string; toolCalls?: ToolCallDelta[]; refusal?: string }
  | { type: 'finish'; finishReason: FinishReason }
  | { type: 'usage'; usage: TokenUsage } // may come more than once; the last one wins
  | { type: 'meta'; upstreamId?: string; upstreamModel?: string };
