import { createHttpAdapter } from '../http/create-http-adapter.js';
import { geminiCodec } from './codec.js';

export { geminiCodec };
export const geminiAdapter = createHttpAdapter('gemini', geminiCodec);
