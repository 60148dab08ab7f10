/** What the rest of the gateway needs from providers; import from here, not from a provider folder. */
export * from './types.js';
// What adapters return is canonical (src/canonical/completion.ts); re-exported because it is also their interface.
export type * from '../canonical/completion.js';
export { adapters, getAdapter, registerProvider, speaksNatively } from './registry.js';
export { answerLocalRequestsWith } from './local/index.js';
export { isProviderKind } from './kinds.js';
export {
  callWithFallback,
  streamWithFallback,
  nativeCallWithFallback,
  nativeStreamWithFallback,
  RoutingError,
  type NativeRequest,
  type Attempt,
  type RouteOptions,
  type Routed,
} from './router.js';
export { DEFAULT_RETRY, decide, type RetryOptions } from './retry-policy.js';
export { closeHttpAgents } from './http/index.js';
export { configureUpstreamLimits, bufferedUpstreamBytes, KeptText } from './bounds/index.js';
export { batchesOf, eventsOf, isEventBatches, type EventBatches } from './event-batches.js';
export { GATEWAY_ONLY_FIELDS } from './shared/gateway-fields.js';
