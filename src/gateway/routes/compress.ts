import type { FastifyInstance } from 'fastify';
import { cachePricingOfModel } from '../../catalogue/cache-pricing.js';
import { compressPayload, CompressionInputError, isCompressionModel } from '../../compress/index.js';
import { sessionIdFrom } from '../../compress/conversation-id.js';
import { compressConversationRequest } from '../../compress/conversation-request.js';
import { GatewayError } from '../../pipeline/errors.js';
import { bundleFromHeader, cacheManagementFrom } from '../../pipeline/apply-compression.js';
import type { GatewayServices } from '../gateway-services.js';

/**
 * POST /v1/compress (spec 2.5, 4.1): any of the three request shapes, detected from the body;
 * no provider is called. The bundle comes from `compression_model` in the body or the
 * X-Gateway-Compression-Model header (the body wins when both are given).
 *
 * When `model` names a catalogue model, the request is compressed as part of its conversation,
 * exactly as the chat path would (same state, same rewrite decisions), so a client that calls
 * its provider itself gets the same stable prefixes. Its own cache hints (Anthropic breakpoints, OpenAI prompt_cache_key)
 * are added only with `X-Gateway-Cache-Breakpoints: on`. Otherwise only the first-sight
 * transforms apply.
 */
export function registerCompressRoute(
  app: FastifyInstance,
  services?: Pick<GatewayServices, 'catalogue' | 'compression'>,
): void {
  app.post('/v1/compress', { config: { allowXApiKey: true } }, async (request) => {
    const body = request.body;
    if (typeof body !== 'object' || body === null || Array.isArray(body)) {
      throw new GatewayError('invalid_request', {
        message: 'The body must be a JSON object: a chat, messages-style or responses-style request.',
      });
    }
    const header = bundleFromHeader(request.headers['x-gateway-compression-model']);
    const manageCache = cacheManagementFrom(request.headers['x-gateway-cache-breakpoints']);
    try {
      const fields = body as Record<string, unknown>;
      const bundle = header && !('compression_model' in fields) ? header : undefined;
      const model = typeof fields.model === 'string' ? services?.catalogue.resolve(fields.model) : undefined;
      const target = model?.routes[0]?.provider;
      if (!model || !target) {
        const result = compressPayload(body, bundle ? { bundle } : {});
        return { ...result.body, compression: result.compression };
      }
      const requested = bundle ?? (isCompressionModel(fields.compression_model) ? fields.compression_model : undefined);
      if (fields.compression_model !== undefined && requested === undefined) compressPayload(body); // names the bad value
      const result = await compressConversationRequest(fields, {
        apiKeyId: request.apiKey.id,
        sessionId: sessionIdFrom(request.headers),
        compress: true,
        bundle: requested,
        provider: { kind: target.kind, id: target.id, baseUrl: target.base_url },
        pricing: cachePricingOfModel(model),
        // Decided as on the chat path; the hints themselves only when asked for: the client
        // calls its provider itself and places its own.
        manageCache: manageCache ?? request.apiKey.cacheBreakpoints,
        addCacheHints: manageCache === true,
        store: services?.compression,
        now: Date.now(),
        onStoreError: (error) => request.log.warn({ err: error }, 'compression conversation state unavailable'),
      });
      return { ...result.body, compression: result.compression };
    } catch (error) {
      if (error instanceof CompressionInputError)
        throw new GatewayError('invalid_request', { message: error.message, param: error.param });
      throw error;
    }
  });
}
