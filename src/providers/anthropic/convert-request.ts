import type { ChatRequest } from '../../canonical/chat-request.js';
import type { UpstreamRequest, UpstreamTarget } from '../types.js';
import { convertMessages, convertSystem } from './convert-messages.js';
import { convertToolChoice, convertTools } from './convert-tools.js';
import { ANTHROPIC_VERSION, type AnthropicRequestBody } from './wire.js';

/**
 * Anthropic requires max_tokens; OpenAI clients usually omit it. 4096 is the largest value every
 * current Claude model accepts (claude-3-haiku's output limit), so it never causes a 400.
 */
export const ANTHROPIC_DEFAULT_MAX_TOKENS = 4096;

function stopSequences(stop: ChatRequest['stop']): string[] | undefined {
  if (stop === undefined || stop === null) return undefined;
  const list = (typeof stop === 'string' ? [stop] : stop).filter((s) => s !== '');
  return list.length > 0 ? list : undefined;
}

export function buildAnthropicBody(
  request: ChatRequest,
  target: UpstreamTarget,
  stream: boolean,
): AnthropicRequestBody {
  const body: AnthropicRequestBody = {
    model: target.upstreamModel,
    max_tokens: request.max_completion_tokens ?? request.max_tokens ?? ANTHROPIC_DEFAULT_MAX_TOKENS,
    messages: convertMessages(request.messages),
  };
  const system = convertSystem(request.messages);
  if (system !== undefined) body.system = system;
  const tools = convertTools(request.tools);
  if (tools) body.tools = tools;
  const toolChoice = convertToolChoice(request);
  if (toolChoice) body.tool_choice = toolChoice;
  const stop = stopSequences(request.stop);
  if (stop) body.stop_sequences = stop;
  // OpenAI's temperature range is 0–2, Anthropic's 0–1: clamp instead of failing with a 400.
  if (request.temperature !== undefined) body.temperature = Math.min(1, request.temperature);
  if (request.top_p !== undefined) body.top_p = request.top_p;
  if (request.user) body.metadata = { user_id: request.user };
  if (stream) body.stream = true;
  return body;
}

export function buildAnthropicRequest(
  request: ChatRequest,
  target: UpstreamTarget,
  options: { stream: boolean },
): UpstreamRequest {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: options.stream ? 'text/event-stream' : 'application/json',
    'anthropic-version': ANTHROPIC_VERSION,
    ...target.headers,
  };
  if (target.apiKey) headers['x-api-key'] = target.apiKey;
  return {
    url: `${target.baseUrl}/messages`,
    method: 'POST',
    headers,
    body: JSON.stringify(buildAnthropicBody(request, target, options.stream)),
  };
}
