import type { UpstreamTarget } from '../../providers/index.js';
import { deleteGatewayHeader, FALLBACK_USED_HEADER, PROVIDER_HEADER, setGatewayHeader } from '../reply-headers.js';
import type { Execution } from './execution.js';

/**
 * Records which provider answered, for the reply's `X-Gateway-Provider` and
 * `X-Gateway-Fallback-Used` headers (docs/agent-endpoints.md, "Response headers"). Called each
 * time routing gets an answer; with gateway tools the last call's provider is the one named.
 */
export function noteServed(execution: Execution, target: Pick<UpstreamTarget, 'providerId' | 'upstreamModel'>): void {
  const { request, services, admission } = execution;
  setGatewayHeader(request, PROVIDER_HEADER, target.providerId);
  if (services.catalogue.isFallback(admission.model, target)) setGatewayHeader(request, FALLBACK_USED_HEADER, '1');
  else deleteGatewayHeader(request, FALLBACK_USED_HEADER);
}
