import type { WireCodec } from '../types.js';
import { httpStatusError } from '../shared/upstream-errors.js';
import { buildAnthropicRequest } from './convert-request.js';
import { convertAnthropicResponse } from './convert-response.js';
import { createAnthropicStreamParser } from './parse-stream.js';

/** Anthropic Messages API at `${baseUrl}/messages`. 529 (overloaded) is a 5xx, hence retryable. */
export const anthropicCodec: WireCodec = {
  buildRequest: buildAnthropicRequest,
  parseResponse: convertAnthropicResponse,
  createStreamParser: createAnthropicStreamParser,
  parseError: (status, body, headers) => httpStatusError('anthropic', status, body, headers),
};
