/**
 * The call core (docs/ARCHITECTURE.md): admit → compress → route → relay → meter, one path for
 * every endpoint. Codecs decode their request into the canonical chat request, open a call,
 * ask for an answer (JSON or stream) and encode it; nothing else of a request's life is theirs.
 */
export { openCall, Call, CLIENT_CLOSED_REQUEST, type Outcome } from './call.js';
export type { AdmitOptions, Admission } from './admit.js';
export { answerJson, answerStream } from './answer.js';
export type { CanonicalAnswer, CanonicalStream } from './single-call.js';
export type { NativeAnswer, NativeEvents, NativeJson, NativeRoute, NativeStream } from './native.js';
export { relayStream, sendJson, type StreamEncoder } from './relay.js';
export { GatewayError, type GatewayErrorCode } from './errors.js';
export type { CoreServices, UpstreamPolicy } from './services.js';
