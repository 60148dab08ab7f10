import type {
  CallOptions,
  NativeAnswer,
  NativeEvent,
  NativeEventStream,
  NativeWire,
  UpstreamRequest,
  UpstreamTarget,
} from '../types.js';
import type { TokenUsage } from '../../canonical/completion.js';
import { openRawCall, readRawText } from '../http/raw-call.js';
import { readRawSse } from '../http/raw-events.js';
import { upstreamRequestId } from '../http/retry-after.js';
import { withoutGatewayFields } from '../shared/gateway-fields.js';
import { KeptText } from '../bounds/kept-text.js';
import { malformed, parseJson, streamedError } from '../shared/upstream-errors.js';
import { count, isRecord } from '../shared/usage.js';
import { openaiCodec } from './codec.js';

/**
 * Native pass-through to OpenAI's Responses API: the client's own Responses body goes upstream
 * as it is (every input item type, `additional_tools`, namespace, custom and hosted tools,
 * `previous_response_id`, fields the gateway does not know), with only the model replaced and
 * the gateway's members removed; the answer comes back as OpenAI wrote it. Usage is read on the
 * way for metering. The chat-completions adapter (codec.ts) is untouched.
 */

/**
 * The Responses wire format as the OpenAI adapter accepts it: served by a target configured with
 * `responses_api`. OpenAI keeps a response as context for a later request unless told not to
 * (`store: false`): its id is then the answer's stored id.
 */
export const openaiResponsesWire: NativeWire = {
  accepts: (target) => target.responsesApi === true,
  complete: async (body, target, options) => {
    const answer = await nativeResponsesComplete(body, target, options);
    const id = answer.body.id;
    return body.store !== false && typeof id === 'string' ? { ...answer, storedId: id } : answer;
  },
  stream: async (body, target, options) => {
    const upstream = await nativeResponsesStream(body, target, options);
    return body.store !== false ? { ...upstream, storedId: upstream.responseId } : upstream;
  },
};

/** Responses usage → the canonical usage (input includes cached, output includes reasoning). */
export function convertResponsesUsage(usage: unknown): TokenUsage {
  const u = isRecord(usage) ? usage : {};
  const input = isRecord(u.input_tokens_details) ? u.input_tokens_details : {};
  const output = isRecord(u.output_tokens_details) ? u.output_tokens_details : {};
  return {
    inputTokens: count(u.input_tokens),
    cachedInputTokens: count(input.cached_tokens),
    // OpenAI reports none; another gateway of this API in front does (docs/wire-contract.md).
    cacheCreationInputTokens: count(input.cache_creation_tokens),
    outputTokens: count(u.output_tokens),
    reasoningTokens: count(output.reasoning_tokens),
  };
}

export function buildNativeResponsesRequest(
  body: Record<string, unknown>,
  target: UpstreamTarget,
  options: { stream: boolean },
): UpstreamRequest {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: options.stream ? 'text/event-stream' : 'application/json',
  };
  for (const [name, value] of Object.entries(target.headers ?? {})) headers[name.toLowerCase()] = value;
  if (target.apiKey) headers.authorization = `Bearer ${target.apiKey}`;
  const upstreamBody: Record<string, unknown> = { ...withoutGatewayFields(body), model: target.upstreamModel };
  // The call decides the mode; a client's own `stream: false` is kept as sent.
  if (options.stream) upstreamBody.stream = true;
  else if (upstreamBody.stream === true) delete upstreamBody.stream;
  return { url: `${target.baseUrl}/responses`, method: 'POST', headers, body: JSON.stringify(upstreamBody) };
}

/** One non-streaming Responses call; resolves with the whole answer (so the router can still retry a malformed one). */
export async function nativeResponsesComplete(
  body: Record<string, unknown>,
  target: UpstreamTarget,
  options: CallOptions,
): Promise<NativeAnswer> {
  const upstream = buildNativeResponsesRequest(body, target, { stream: false });
  const call = await openRawCall(upstream, target, options, openaiCodec.parseError);
  const parsed = parseJson(await readRawText(call), 'upstream response');
  if (!isRecord(parsed) || !Array.isArray(parsed.output)) throw malformed('responses answer has no output array');
  const requestId = upstreamRequestId(call.headers);
  return {
    body: parsed,
    usage: convertResponsesUsage(parsed.usage),
    ...(requestId ? { upstreamRequestId: requestId } : {}),
  };
}

export interface NativeResponsesStream extends NativeEventStream {
  /** The response's id once `response.completed` / `response.incomplete` arrived; undefined before. */
  responseId(): string | undefined;
}

/** Deltas whose text counts as output when a stream is cut short. */
const OUTPUT_DELTAS = new Set([
  'response.output_text.delta',
  'response.refusal.delta',
  'response.function_call_arguments.delta',
  'response.custom_tool_call_input.delta',
  'response.reasoning_summary_text.delta',
  'response.reasoning_text.delta',
]);

/**
 * Starts a streaming Responses call. Resolves once the upstream answered 2xx; the events then
 * come as OpenAI sent them. `error` and `response.failed` events, invalid JSON, or an end before
 * `response.completed` / `response.incomplete` throw UpstreamErrors; stopping the iteration
 * early aborts the upstream.
 */
export async function nativeResponsesStream(
  body: Record<string, unknown>,
  target: UpstreamTarget,
  options: CallOptions,
): Promise<NativeResponsesStream> {
  const upstream = buildNativeResponsesRequest(body, target, { stream: true });
  const call = await openRawCall(upstream, target, options, openaiCodec.parseError);
  let usage: TokenUsage | undefined;
  let finished = false;
  let responseId: string | undefined;
  const produced: string[] = [];
  // Bounded like the translated paths' accumulator: endless deltas fail the stream at the limit.
  const kept = new KeptText();

  async function* events(): AsyncGenerator<NativeEvent> {
    try {
      for await (const sse of readRawSse(call)) {
        const text = sse.data.trim();
        if (text === '' || text === '[DONE]') continue;
        const data = parseJson(sse.data, 'responses stream event');
        if (!isRecord(data)) throw malformed('responses stream event is not a JSON object');
        const event = sse.event ?? (typeof data.type === 'string' ? data.type : '');
        observe(event, data);
        yield { event, data };
      }
    } finally {
      kept.release();
    }
    if (!finished) throw malformed('responses stream ended before response.completed');
  }

  function observe(event: string, data: Record<string, unknown>): void {
    if (OUTPUT_DELTAS.has(event)) {
      if (typeof data.delta === 'string') {
        kept.add(data.delta);
        produced.push(data.delta);
      }
      return;
    }
    if (event === 'response.completed' || event === 'response.incomplete') {
      const response = isRecord(data.response) ? data.response : {};
      usage = convertResponsesUsage(response.usage);
      if (typeof response.id === 'string') responseId = response.id;
      finished = true;
      return;
    }
    if (event === 'response.failed' || event === 'error') {
      const response = isRecord(data.response) ? data.response : {};
      const error = isRecord(response.error) ? response.error : isRecord(data.error) ? data.error : data;
      const code = typeof error.code === 'string' ? error.code : 'error';
      // OpenAI's own transient failures inside a 200 stream are worth another attempt.
      const retryable = code === 'server_error' || code === 'rate_limit_exceeded';
      throw streamedError('openai', `${code}: ${String(error.message ?? 'unknown error')}`, retryable);
    }
  }

  return {
    events: events(),
    usage: () => (usage ? { ...usage } : undefined),
    complete: () => finished,
    producedText: () => produced.join(''),
    responseId: () => responseId,
  };
}
