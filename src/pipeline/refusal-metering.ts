import type { FastifyRequest } from 'fastify';
import type { CoreServices } from './services.js';
import { timeOrderedUuid } from '../server/random-ids.js';

/**
 * A request refused at admission for its key's ceiling still leaves a usage row (zero tokens,
 * zero cost, status 429), so the export shows who hit their limit and when. Requests refused
 * earlier, for a malformed body or an unknown model, are client errors and are not metered.
 */
export function meterRefusal(
  services: CoreServices,
  request: FastifyRequest,
  refusal: {
    model: string;
    provider: string;
    upstreamModel: string;
    tags: string[];
    stream: boolean;
    startedAt: number;
    code: string;
    status: number;
  },
): void {
  const now = Date.now();
  void services.usage.write(
    {
      id: timeOrderedUuid(now),
      request_id: request.id,
      created_at: now,
      organization_id: request.apiKey.organizationId,
      api_key_id: request.apiKey.id,
      model: refusal.model,
      provider: refusal.provider,
      upstream_model: refusal.upstreamModel,
      endpoint: request.routeOptions.url ?? request.url,
      input_tokens: 0,
      cached_input_tokens: 0,
      cache_creation_input_tokens: 0,
      output_tokens: 0,
      reasoning_tokens: 0,
      uncompressed_input_tokens: null,
      cost_micro_usd: 0,
      tags: JSON.stringify(refusal.tags),
      status_code: refusal.status,
      error_code: refusal.code,
      latency_ms: now - refusal.startedAt,
      stream: refusal.stream ? 1 : 0,
    },
    false,
  );
}
