import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ApiKey } from '../store/api-keys.js';
import type { UsageWriter } from '../metering/usage-writer.js';
import { timeOrderedUuid } from '../server/random-ids.js';
import { requestedModel } from '../server/access-log.js';

const WINDOW_MS = 60_000;

/**
 * Refused requests of an identified key (400, 403, 404, 413, 429 … that no usage row records)
 * become zero-cost usage rows with their error code, so the key's organization sees them on the
 * console's Logs page (docs/decisions.md, "Refused requests in the Logs page"). A 401 names no
 * key, hence no organization: it is only in the access log. A key flooding refusals stores at
 * most `perKeyPerMinute` of them a minute per process; the rest are only in the access log, and
 * stored ones expire (metering/refusal-retention.ts).
 */
export class RefusedRequests {
  private readonly storedInWindow = new Map<string, number>();
  private windowEnds = 0;

  constructor(
    private readonly usage: Pick<UsageWriter, 'write'>,
    private readonly perKeyPerMinute: number,
  ) {}

  /** Records a finished request when it is a refusal of an identified key that was not metered. */
  observe(request: FastifyRequest, status: number, latencyMs: number): void {
    // 499: the client left, not a refusal; 5xx are the gateway's failures, metered where they happen.
    if (status < 400 || status >= 499 || request.metered !== null) return;
    const key = request.apiKey as ApiKey | null;
    if (!key || !this.admit(key.id)) return;
    const now = Date.now();
    const body = request.body as { stream?: unknown } | null | undefined;
    void this.usage.write(
      {
        id: timeOrderedUuid(now),
        request_id: request.id,
        created_at: now,
        organization_id: key.organizationId,
        api_key_id: key.id,
        member_id: key.memberId,
        model: requestedModel(request) ?? '',
        provider: '',
        upstream_model: '',
        endpoint: request.routeOptions.url ?? '',
        input_tokens: 0,
        cached_input_tokens: 0,
        cache_creation_input_tokens: 0,
        output_tokens: 0,
        reasoning_tokens: 0,
        uncompressed_input_tokens: null,
        cost_micro_usd: 0,
        tags: '[]',
        status_code: status,
        error_code: request.errorCode,
        latency_ms: Math.round(latencyMs),
        stream: typeof body === 'object' && body !== null && body.stream === true ? 1 : 0,
      },
      false,
    );
  }

  /** Counts per key in fixed one-minute windows; the map holds only the keys refused in the current one. */
  private admit(keyId: string): boolean {
    const now = Date.now();
    if (now >= this.windowEnds) {
      this.storedInWindow.clear();
      this.windowEnds = now + WINDOW_MS;
    }
    const stored = this.storedInWindow.get(keyId) ?? 0;
    if (stored >= this.perKeyPerMinute) return false;
    this.storedInWindow.set(keyId, stored + 1);
    return true;
  }
}

/** Observes every answered request of `app`'s authenticated routes (refusals are never hijacked, so `onResponse` sees them). */
export function registerRefusedRequests(app: FastifyInstance, refused: RefusedRequests): void {
  app.addHook('onResponse', (request, reply, done) => {
    refused.observe(request, reply.statusCode, reply.elapsedTime);
    done();
  });
}
