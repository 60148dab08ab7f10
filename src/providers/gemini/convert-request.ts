import type { ChatRequest } from '../../canonical/chat-request.js';
import type { UpstreamRequest, UpstreamTarget } from '../types.js';
import { convertContents, convertSystemInstruction } from './convert-messages.js';
import { convertToolConfig, convertTools } from './convert-tools.js';
import type { GeminiRequestBody } from './wire.js';

function generationConfig(request: ChatRequest): GeminiRequestBody['generationConfig'] {
  const config: NonNullable<GeminiRequestBody['generationConfig']> = {};
  const maxTokens = request.max_completion_tokens ?? request.max_tokens;
  if (maxTokens !== undefined) config.maxOutputTokens = maxTokens;
  if (request.temperature !== undefined) config.temperature = request.temperature;
  if (request.top_p !== undefined) config.topP = request.top_p;
  if (request.stop !== undefined && request.stop !== null)
    config.stopSequences = typeof request.stop === 'string' ? [request.stop] : request.stop;
  if (request.seed !== undefined) config.seed = request.seed;
  if (request.presence_penalty !== undefined) config.presencePenalty = request.presence_penalty;
  if (request.frequency_penalty !== undefined) config.frequencyPenalty = request.frequency_penalty;
  return Object.keys(config).length > 0 ? config : undefined;
}

export function buildGeminiBody(request: ChatRequest): GeminiRequestBody {
  const body: GeminiRequestBody = { contents: convertContents(request.messages) };
  const system = convertSystemInstruction(request.messages);
  if (system) body.systemInstruction = system;
  const tools = convertTools(request.tools);
  if (tools) body.tools = tools;
  const toolConfig = convertToolConfig(request);
  if (toolConfig) body.toolConfig = toolConfig;
  const config = generationConfig(request);
  if (config) body.generationConfig = config;
  return body;
}

export function buildGeminiRequest(
  request: ChatRequest,
  target: UpstreamTarget,
  options: { stream: boolean },
): UpstreamRequest {
  const model = encodeURIComponent(target.upstreamModel);
  const url = options.stream
    ? `${target.baseUrl}/models/${model}:streamGenerateContent?alt=sse`
    : `${target.baseUrl}/models/${model}:generateContent`;
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: options.stream ? 'text/event-stream' : 'application/json',
    ...target.headers,
  };
  if (target.apiKey) headers['x-goog-api-key'] = target.apiKey;
  return { url, method: 'POST', headers, body: JSON.stringify(buildGeminiBody(request)) };
}
