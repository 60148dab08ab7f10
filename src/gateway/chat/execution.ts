import type { FastifyRequest } from 'fastify';
import type { AbortSignalLike } from '../../providers/index.js';
import type { ProviderCompletion, ProviderStreamEvent, TokenUsage } from '../../canonical/completion.js';
import type { GatewayServices } from '../gateway-services.js';
import type { Admission } from './admission.js';

/**
 * One admitted request, independent of the client's wire format: the chat, messages and
 * responses endpoints all run through here, and each only formats what comes out. Metering
 * happens here exactly once per request, whatever the outcome.
 */
export interface Execution {
  services: GatewayServices;
  request: FastifyRequest;
  admission: Admission;
  /** Aborted when the client goes away; stops the upstream at once. */
  signal: AbortSignalLike;
  endpoint: string;
}

export interface JsonResult {
  completion: ProviderCompletion;
  /** Gateway members added to the response: compression, debug, … */
  extras: Record<string, unknown>;
}

export interface StreamSession {
  /** Provider-neutral events; iterate to the end, or stop early (the upstream is then aborted and the request metered as 499). */
  events: AsyncIterable<ProviderStreamEvent>;
  /** Valid once `events` has ended: the usage that was metered and the gateway members for the final chunk. */
  usage(): TokenUsage;
  extras(): Record<string, unknown>;
  /**
   * With gateway tools: `gateway_tools_executed` and `gateway_pending_id`, valid from the moment
   * the finish event is yielded (the chat route puts them on the finish chunk too).
   */
  gatewayExtras?: () => Record<string, unknown>;
}
