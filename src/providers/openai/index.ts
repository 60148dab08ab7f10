import { createHttpAdapter } from '../http/create-http-adapter.js';
import { openaiCodec } from './codec.js';
import { openaiResponsesWire } from './native-responses.js';

export { openaiCodec };
export const openaiAdapter = createHttpAdapter('openai', openaiCodec, { 'openai-responses': openaiResponsesWire });
