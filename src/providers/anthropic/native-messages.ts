import type {
  NativeAnswer,
  NativeCallOptions,
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
import { isRecord } from '../shared/usage.js';
import { anthropicCodec } from './codec.js';
import { convertAnthropicResponse } from './convert-response.js';
import { convertAnthropicUsage, withLateUsage } from './convert-usage.js';
import { ANTHROPIC_VERSION } from './wire.js';

/**
 * Native pass-through to the Anthropic Messages API: the client's own Messages body goes
 * upstream as it is (thinking blocks, `top_k`, every `cache_control`, fields the gateway does not
 * know), with only the model replaced and the gateway's members removed; the answer comes back
 * as Anthropic wrote it. Usage is read on the way for metering. No translation happens here;
 * the canonical-request adapter (codec.ts) is untouched.
 */

/** Client headers forwarded as they came (Anthropic clients send both). */
export interface NativeHeaders {
  anthropicVersion?: string | undefined;
  anthropicBeta?: string | undefined;
}

/** The Messages wire format as the Anthropic adapter accepts it: every Anthropic target serves it. */
export const anthropicMessagesWire: NativeWire = {
  accepts: () => true,
  complete: (body, target, options) => nativeMessagesComplete(body, target, withClientHeaders(options)),
  stream: (body, target, options) => nativeMessagesStream(body, target, withClientHeaders(options)),
};

function withClientHeaders(options: NativeCallOptions): NativeCallOptions & NativeHeaders {
  const headers = options.wireHeaders;
  if (!headers) return options;
  return { ...options, anthropicVersion: headers['anthropic-version'], anthropicBeta: headers['anthropic-beta'] };
}

/** Anthropic error types worth retrying when they arrive inside a 200 stream (as parse-stream.ts). */
const RETRYABLE_STREAM_ERRORS = new Set(['overloaded_error', 'api_error', 'rate_limit_error']);

/**
 * The upstream request: defaults, then the client's `anthropic-version` / `anthropic-beta`,
 * then the operator's configured provider headers (they win, except that configured and client
 * betas are combined).
 */
export function buildNativeMessagesRequest(
  body: Record<string, unknown>,
  target: UpstreamTarget,
  options: { stream: boolean } & NativeHeaders,
): UpstreamRequest {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: options.stream ? 'text/event-stream' : 'application/json',
    'anthropic-version': options.anthropicVersion || ANTHROPIC_VERSION,
  };
  const betas = new Set<string>();
  const addBetas = (value: string | undefined) => {
    for (const beta of (value ?? '').split(',')) if (beta.trim()) betas.add(beta.trim());
  };
  addBetas(options.anthropicBeta);
  for (const [name, value] of Object.entries(target.headers ?? {})) {
    const lower = name.toLowerCase();
    if (lower === 'anthropic-beta') addBetas(value);
    else headers[lower] = value;
  }
  if (betas.size > 0) headers['anthropic-beta'] = [...betas].join(',');
  if (target.apiKey) headers['x-api-key'] = target.apiKey;
  const upstreamBody: Record<string, unknown> = { ...withoutGatewayFields(body), model: target.upstreamModel };
  // The call decides the mode; a client's own `stream: false` is kept as sent.
  if (options.stream) upstreamBody.stream = true;
  else if (upstreamBody.stream === true) delete upstreamBody.stream;
  return { url: `${target.baseUrl}/messages`, method: 'POST', headers, body: JSON.stringify(upstreamBody) };
}

/** One non-streaming Messages call; resolves with the whole answer (so the router can still retry a malformed one). */
export async function nativeMessagesComplete(
  body: Record<string, unknown>,
  target: UpstreamTarget,
  options: NativeCallOptions & NativeHeaders,
): Promise<NativeAnswer> {
  const upstream = buildNativeMessagesRequest(body, target, { ...options, stream: false });
  const call = await openRawCall(upstream, target, options, anthropicCodec.parseError);
  const text = await readRawText(call);
  const parsed = parseJson(text, 'upstream response');
  // The canonical parser checks the shape (a content array) and reads usage exactly as the adapter does.
  const { usage } = convertAnthropicResponse(parsed);
  const requestId = upstreamRequestId(call.headers);
  return { body: parsed as Record<string, unknown>, usage, ...(requestId ? { upstreamRequestId: requestId } : {}) };
}

/**
 * Starts a streaming Messages call. Resolves once the upstream answered 2xx; the events then come
 * as Anthropic sent them. An `error` event, invalid JSON, or an end before `message_stop` /
 * `message_delta` throw UpstreamErrors; stopping the iteration early aborts the upstream. Usage
 * is message_start's, updated by message_delta's; the produced text is text, thinking and tool input.
 */
export async function nativeMessagesStream(
  body: Record<string, unknown>,
  target: UpstreamTarget,
  options: NativeCallOptions & NativeHeaders,
): Promise<NativeEventStream> {
  const upstream = buildNativeMessagesRequest(body, target, { ...options, stream: true });
  const call = await openRawCall(upstream, target, options, anthropicCodec.parseError);
  let usage: TokenUsage | undefined;
  let finished = false;
  let stopped = false;
  const produced: string[] = [];
  // Bounded like the translated paths' accumulator: endless deltas fail the stream at the limit.
  const kept = new KeptText();

  async function* events(): AsyncGenerator<NativeEvent> {
    try {
      for await (const sse of readRawSse(call)) {
        if (sse.data.trim() === '') continue;
        const data = parseJson(sse.data, 'anthropic stream event');
        if (!isRecord(data)) throw malformed('anthropic stream event is not a JSON object');
        const event = sse.event ?? (typeof data.type === 'string' ? data.type : '');
        observe(event, data);
        yield { event, data };
      }
    } finally {
      kept.release();
    }
    if (!stopped && !finished) throw malformed('anthropic stream ended before message_stop');
  }

  function observe(event: string, data: Record<string, unknown>): void {
    switch (event) {
      case 'message_start': {
        const message = isRecord(data.message) ? data.message : {};
        usage = convertAnthropicUsage(isRecord(message.usage) ? message.usage : undefined);
        return;
      }
      case 'content_block_delta': {
        const delta = isRecord(data.delta) ? data.delta : {};
        const piece = delta.text ?? delta.thinking ?? delta.partial_json;
        if (typeof piece === 'string') {
          kept.add(piece);
          produced.push(piece);
        }
        return;
      }
      case 'message_delta': {
        const delta = isRecord(data.delta) ? data.delta : {};
        if (typeof delta.stop_reason === 'string') finished = true;
        if (isRecord(data.usage)) {
          usage = withLateUsage(usage, data.usage);
        }
        return;
      }
      case 'message_stop':
        stopped = true;
        return;
      case 'error': {
        const error = isRecord(data.error) ? data.error : {};
        const errorType = typeof error.type === 'string' ? error.type : 'error';
        throw streamedError(
          'anthropic',
          `${errorType}: ${String(error.message ?? 'unknown error')}`,
          RETRYABLE_STREAM_ERRORS.has(errorType),
        );
      }
      default:
        return;
    }
  }

  return {
    events: events(),
    usage: () => (usage ? { ...usage } : undefined),
    complete: () => finished,
    producedText: () => produced.join(''),
  };
}
