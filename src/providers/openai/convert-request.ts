import type { ChatRequest } from '../../canonical/chat-request.js';
import type { UpstreamRequest, UpstreamTarget } from '../types.js';
import { GATEWAY_ONLY_FIELDS } from '../shared/gateway-fields.js';

/**
 * `cache_control` is an Anthropic-style hint: OpenAI caches prompts on its own and strict
 * OpenAI-compatible servers reject unknown message keys, so it is dropped here. Messages without
 * it are passed on as they are (no copy).
 */
function stripCacheControl(messages: ChatRequest['messages']): unknown[] {
  let stripped: unknown[] | undefined;
  for (let i = 0; i < messages.length; i++) {
    const message = messages[i]!;
    const out = withoutCacheControl(message);
    if (out !== message) stripped ??= messages.slice(0, i);
    stripped?.push(out);
  }
  return stripped ?? messages;
}

function withoutCacheControl(message: ChatRequest['messages'][number]): unknown {
  const parts = Array.isArray(message.content) ? (message.content as Array<Record<string, unknown>>) : undefined;
  if (!('cache_control' in message) && !parts?.some((part) => 'cache_control' in part)) return message;
  const { cache_control: _ignored, ...rest } = message;
  if (parts) return { ...rest, content: parts.map(({ cache_control: _c, ...part }) => part) };
  return rest;
}

const GATEWAY_ONLY: ReadonlySet<string> = new Set(GATEWAY_ONLY_FIELDS);

/**
 * OpenAI's own API: `max_tokens` is deprecated there and refused by its reasoning models, which
 * take `max_completion_tokens` (every chat model accepts that name). OpenAI-compatible servers
 * of other vendors keep `max_tokens`, the name they all know.
 */
function prefersMaxCompletionTokens(target: UpstreamTarget): boolean {
  let prefers = OPENAI_HOST_BY_BASE_URL.get(target.baseUrl);
  if (prefers === undefined) {
    prefers = URL.canParse(target.baseUrl) && new URL(target.baseUrl).hostname === 'api.openai.com';
    if (OPENAI_HOST_BY_BASE_URL.size < 64) OPENAI_HOST_BY_BASE_URL.set(target.baseUrl, prefers);
  }
  return prefers;
}

/** Base URLs come from the catalogue: a handful per deployment. */
const OPENAI_HOST_BY_BASE_URL = new Map<string, boolean>();

/**
 * The client's body as OpenAI gets it, members in the client's order: the upstream model, no
 * gateway-only fields, and for streams `stream_options.include_usage` (usage is needed for
 * metering whatever the client asked for; the gateway decides whether to forward the usage
 * chunk). Built in one pass: copying the body and then deleting members would leave V8 a slow
 * dictionary-mode object to serialise.
 */
export function buildOpenAIBody(
  request: ChatRequest,
  target: UpstreamTarget,
  stream: boolean,
): Record<string, unknown> {
  const source = request as unknown as Record<string, unknown>;
  const body: Record<string, unknown> = {};
  const renameMaxTokens =
    typeof source.max_tokens === 'number' &&
    typeof source.max_completion_tokens !== 'number' &&
    prefersMaxCompletionTokens(target);
  for (const key in source) {
    if (GATEWAY_ONLY.has(key)) continue;
    switch (key) {
      case 'model':
        body.model = target.upstreamModel;
        break;
      case 'messages':
        body.messages = stripCacheControl(request.messages);
        break;
      case 'stream':
        if (stream) body.stream = true;
        break;
      case 'stream_options':
        if (stream) body.stream_options = { ...request.stream_options, include_usage: true };
        break;
      case 'max_tokens':
        if (renameMaxTokens) body.max_completion_tokens = source.max_tokens;
        else body.max_tokens = source.max_tokens;
        break;
      case 'max_completion_tokens':
        // A null next to a renamed max_tokens would overwrite it.
        if (!renameMaxTokens) body.max_completion_tokens = source.max_completion_tokens;
        break;
      default:
        body[key] = source[key];
    }
  }
  body.model ??= target.upstreamModel;
  body.messages ??= stripCacheControl(request.messages);
  if (stream) {
    body.stream = true;
    body.stream_options ??= { include_usage: true };
  }
  return body;
}

export function buildOpenAIRequest(
  request: ChatRequest,
  target: UpstreamTarget,
  options: { stream: boolean },
): UpstreamRequest {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: options.stream ? 'text/event-stream' : 'application/json',
    ...target.headers,
  };
  if (target.apiKey) headers.authorization = `Bearer ${target.apiKey}`;
  return {
    url: `${target.baseUrl}/chat/completions`,
    method: 'POST',
    headers,
    body: JSON.stringify(buildOpenAIBody(request, target, options.stream)),
  };
}
