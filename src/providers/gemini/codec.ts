import type { WireCodec } from '../types.js';
import { httpStatusError } from '../shared/upstream-errors.js';
import { buildGeminiRequest } from './convert-request.js';
import { convertGeminiResponse } from './convert-response.js';
import { createGeminiStreamParser } from './parse-stream.js';

/**
 * Gemini answers a bad API key with 400 INVALID_ARGUMENT (reason API_KEY_INVALID). It is
 * reported as 401 so the router and the client see an authentication failure, as with the
 * other providers.
 */
function geminiStatus(status: number, body: string): number {
  return status === 400 && body.includes('API_KEY_INVALID') ? 401 : status;
}

export const geminiCodec: WireCodec = {
  buildRequest: buildGeminiRequest,
  parseResponse: convertGeminiResponse,
  createStreamParser: createGeminiStreamParser,
  parseError: (status, body, headers) => httpStatusError('gemini', geminiStatus(status, body), body, headers),
};
