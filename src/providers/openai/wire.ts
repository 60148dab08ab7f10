/**
 * The parts of OpenAI's chat-completions JSON the gateway reads. Everything is optional because
 * the body comes from an untrusted upstream (and from many "OpenAI-compatible" servers).
 */
export interface OpenAIUsage {
  prompt_tokens?: number;
  completion_tokens?: number;
  prompt_tokens_details?: {
    cached_tokens?: number;
    cache_write_tokens?: number;
    cache_creation_tokens?: number;
  } | null;
  /** Another gateway of this API in front (spec 2.4 names): `cache_creation_tokens`. */
  input_tokens_details?: { cached_tokens?: number; cache_creation_tokens?: number } | null;
  completion_tokens_details?: { reasoning_tokens?: number } | null;
}

export interface OpenAIToolCall {
  index?: number;
  id?: string;
  type?: string;
  function?: { name?: string; arguments?: string };
}

export interface OpenAIChoice {
  index?: number;
  message?: { role?: string; content?: string | null; refusal?: string | null; tool_calls?: OpenAIToolCall[] | null };
  delta?: { role?: string; content?: string | null; refusal?: string | null; tool_calls?: OpenAIToolCall[] | null };
  finish_reason?: string | null;
}

export interface OpenAIResponse {
  id?: string;
  model?: string;
  choices?: OpenAIChoice[];
  usage?: OpenAIUsage | null;
  error?: { message?: string; type?: string; code?: string | null };
}
