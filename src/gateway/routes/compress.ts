import type { FastifyInstance } from 'fastify';
import { compressPayload, CompressionInputError } from '../../compress/index.js';
import { GatewayError } from '../../pipeline/errors.js';
import { bundleFromHeader } from '../../pipeline/apply-compression.js';

/**
 * POST /v1/compress (spec 2.5, 4.1): any of the three request shapes, detected from the body;
 * no provider is called. The bundle comes from `compression_model` in the body or the
 * X-Gateway-Compression-Model header (the body wins when both are given).
 */
export function registerCompressRoute(app: FastifyInstance): void {
  app.post('/v1/compress', { config: { allowXApiKey: true } }, async (request) => {
    const body = request.body;
    if (typeof body !== 'object' || body === null || Array.isArray(body)) {
      throw new GatewayError('invalid_request', {
        message: 'The body must be a JSON object: a chat, messages-style or responses-style request.',
      });
    }
    const bundle = bundleFromHeader(request.headers['x-gateway-compression-model']);
    try {
      const result = compressPayload(body, bundle && !('compression_model' in body) ? { bundle } : {});
      return { ...result.body, compression: result.compression };
    } catch (error) {
      if (error instanceof CompressionInputError)
        throw new GatewayError('invalid_request', { message: error.message, param: error.param });
      throw error;
    }
  });
}
