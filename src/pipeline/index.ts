/**
 * The call core (docs/ARCHITECTURE.md): admit (the plan) → serve (route, relay) → settle, one path
 * for every endpoint. Codecs decode their request into the canonical chat request (and offer the
 * client's own body for native pass-through), open a call, and hand it to `serve` with how their
 * answers are written; nothing else of a request's life is theirs.
 */
export { openCall, Call, CLIENT_CLOSED_REQUEST, type Outcome } from './call.js';
export type { Admission } from './admit.js';
export type { NativeOffer, NativePlan, Plan, TranslatedPlan } from './plan.js';
export { serve, type AnswerCodec, type StreamSession } from './serve.js';
export { relayStream, sendJson, type StreamEncoder } from './relay.js';
export { GatewayError, type GatewayErrorCode } from './errors.js';
export type { CoreServices, UpstreamPolicy } from './services.js';
