import { createHttpAdapter } from '../http/create-http-adapter.js';
import { openaiCodec } from './codec.js';

export { openaiCodec };
export const openaiAdapter = createHttpAdapter('openai', openaiCodec);
