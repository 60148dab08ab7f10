import type { FastifyInstance } from 'fastify';
import {
  CompressionInputError,
  isCompressionModel,
  COMPRESSION_MODELS,
  type BundleName,
} from '../../compress/index.js';
import { compressPayloadOffloaded } from '../../offload/index.js';
import { GatewayError } from '../errors.js';

/**
 * POST /v1/compress (spec 2.5, 4.1): any of the three request shapes, detected from the body;
 * no provider is called. The bundle comes from `compression_model` in the body or the
 * X-Gateway-Compression-Model header (the body wins when both are given).
 */
export function registerCompressRoute(app: FastifyInstance, bodyLimit?: number): void {
  // bodyLimit: GATEWAY_COMPRESS_BODY_LIMIT_BYTES (big agent transcripts); undefined, the listener's.
  app.post('/v1/compress', { config: { allowXApiKey: true }, bodyLimit }, async (request) => {
    const body = request.body;
    if (typeof body !== 'object' || body === null || Array.isArray(body)) {
      throw new GatewayError('invalid_request', {
        message: 'The body must be a JSON object: a chat, messages-style or responses-style request.',
      });
    }
    const bundle = bundleFromHeader(request.headers['x-gateway-compression-model']);
    try {
      const result = await compressPayloadOffloaded(body, bundle && !('compression_model' in body) ? { bundle } : {});
      return { ...result.body, compression: result.compression };
    } catch (error) {
      if (error instanceof CompressionInputError)
        throw new GatewayError('invalid_request', { message: error.message, param: error.param });
      throw error;
    }
  });
}

export function bundleFromHeader(header: string | string[] | undefined): BundleName | undefined {
  const value = Array.isArray(header) ? header[0] : header;
  if (value === undefined || value === '') return undefined;
  if (!isCompressionModel(value)) {
    throw new GatewayError('invalid_request', {
      message: `Unknown X-Gateway-Compression-Model "${value.slice(0, 40)}"; expected one of ${COMPRESSION_MODELS.join(', ')}.`,
      param: 'compression_model',
    });
  }
  return value;
}
