/** What the rest of the gateway needs from providers; import from here, not from a provider folder. */
export * from './types.js';
export { adapters, getAdapter } from './registry.js';
export { callWithFallback, streamWithFallback, RoutingError, type Attempt, type RouteOptions, type Routed } from './router.js';
export { DEFAULT_RETRY, type RetryOptions } from './retry-policy.js';
export { closeHttpAgents } from './http/index.js';
export { GATEWAY_ONLY_FIELDS } from './shared/gateway-fields.js';
