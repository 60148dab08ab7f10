import type { WireCodec } from '../types.js';
import { httpStatusError } from '../shared/upstream-errors.js';
import { buildOpenAIRequest } from './convert-request.js';
import { convertOpenAIResponse } from './convert-response.js';
import { createOpenAIStreamParser } from './parse-stream.js';

/** OpenAI chat completions, and any server that speaks it at `${baseUrl}/chat/completions`. */
export const openaiCodec: WireCodec = {
  buildRequest: buildOpenAIRequest,
  parseResponse: convertOpenAIResponse,
  createStreamParser: createOpenAIStreamParser,
  parseError: (status, body, headers) => httpStatusError('openai', status, body, headers),
};
