/** What the rest of the gateway needs from providers; import from here, not from a provider folder. */
export * from './types.js';
// What adapters return is canonical (src/canonical/completion.ts); re-exported because it is also their interface.
export type * from '../canonical/completion.js';
export { adapters, getAdapter } from './registry.js';
export { answerLocalRequestsWith } from './local/index.js';
export {
  callWithFallback,
  streamWithFallback,
  routeCalls,
  RoutingError,
  type Attempt,
  type RouteOptions,
  type Routed,
} from './router.js';
export { DEFAULT_RETRY, decide, type RetryOptions } from './retry-policy.js';
export { closeHttpAgents } from './http/index.js';
export { configureUpstreamLimits, bufferedUpstreamBytes, KeptText } from './bounds/index.js';
export { batchesOf, eventsOf, isEventBatches, type EventBatches } from './event-batches.js';
export { GATEWAY_ONLY_FIELDS } from './shared/gateway-fields.js';
export {
  nativeMessagesComplete,
  nativeMessagesStream,
  type NativeHeaders,
  type NativeMessage,
  type NativeStream,
  type NativeStreamEvent,
} from './anthropic/native-messages.js';
export {
  nativeResponsesComplete,
  nativeResponsesStream,
  type NativeResponse,
  type NativeResponsesEvent,
  type NativeResponsesStream,
} from './openai/native-responses.js';
