import { createHttpAdapter } from '../http/create-http-adapter.js';
import { anthropicCodec } from './codec.js';
import { anthropicMessagesWire } from './native-messages.js';

export { anthropicCodec };
export const anthropicAdapter = createHttpAdapter('anthropic', anthropicCodec, {
  'anthropic-messages': anthropicMessagesWire,
});
