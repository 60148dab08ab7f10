import type { ChatRequest } from '../../gateway/schemas/chat-request.js';
import type { UpstreamRequest, UpstreamTarget } from '../types.js';
import { withoutGatewayFields } from '../shared/gateway-fields.js';

/**
 * `cache_control` is an Anthropic-style hint: OpenAI caches prompts on its own and strict
 * OpenAI-compatible servers reject unknown message keys, so it is dropped here.
 */
function stripCacheControl(messages: ChatRequest['messages']): unknown[] {
  return messages.map((message) => {
    const { cache_control: _ignored, ...rest } = message;
    if (Array.isArray(rest.content)) {
      return { ...rest, content: rest.content.map(({ cache_control: _c, ...part }: Record<string, unknown>) => part) };
    }
    return rest;
  });
}

export function buildOpenAIBody(request: ChatRequest, target: UpstreamTarget, stream: boolean): Record<string, unknown> {
  const body = withoutGatewayFields(request);
  body.model = target.upstreamModel;
  body.messages = stripCacheControl(request.messages);
  if (stream) {
    body.stream = true;
    // Usage is needed for metering whatever the client asked for; the gateway decides whether
    // to forward the usage chunk.
    const clientOptions = request.stream_options ?? {};
    body.stream_options = { ...clientOptions, include_usage: true };
  } else {
    delete body.stream;
    delete body.stream_options;
  }
  return body;
}

export function buildOpenAIRequest(request: ChatRequest, target: UpstreamTarget, options: { stream: boolean }): UpstreamRequest {
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
