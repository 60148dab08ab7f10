import { createHttpAdapter } from '../http/create-http-adapter.js';
import { anthropicCodec } from './codec.js';

export { anthropicCodec };
export const anthropicAdapter = createHttpAdapter('anthropic', anthropicCodec);
