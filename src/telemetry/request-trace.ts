import type { TokenUsage } from '../canonical/completion.js';

/** One upstream call of a request: a retry, a fallback to another provider, or the one that answered. */
export interface TracedAttempt {
  providerId: string;
  /** Adapter kind (`openai`, `anthropic`, `gemini`, …): the GenAI provider name comes from it. */
  providerKind?: string | undefined;
  upstreamModel: string;
  /** Upstream HTTP status; null when no response came. */
  status: number | null;
  error?: string | undefined;
  /** Epoch milliseconds. */
  startedAt: number;
  durationMs: number;
}

/**
 * Everything a finished request contributes to its trace. Built only when tracing is on, after
 * the request was metered, so a trace always agrees with the usage row.
 */
export interface RequestTraceData {
  /** `chat` for chat completions, messages and responses alike (GenAI's operation name). */
  operation: 'chat';
  endpoint: string;
  requestId: string;
  /** The model id the client asked for. */
  requestModel: string;
  /** The provider that answered (or the last one tried); undefined when none was called. */
  providerId: string | undefined;
  providerKind?: string | undefined;
  responseModel: string | undefined;
  responseId?: string | undefined;
  finishReasons?: string[] | undefined;
  stream: boolean;
  maxTokens?: number | undefined;
  temperature?: number | undefined;
  topP?: number | undefined;
  /** Epoch milliseconds. */
  startedAt: number;
  endedAt: number;
  status: number;
  errorCode: string | null;
  usage: TokenUsage;
  costMicroUsd: number;
  compression?: { savedTokens: number; costSavingsMicroUsd?: number | undefined } | undefined;
  attempts: TracedAttempt[];
  organizationId: string;
  apiKeyId: string;
  tags: string[];
  /** The client's W3C `traceparent`, when it sent one: the request's span joins the client's trace. */
  traceparent?: string | undefined;
}
