import { Readable } from 'node:stream';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { CompressionInputError } from '../../compress/index.js';
import { compressJsonBytesOffloaded, compressPayloadOffloaded, offloadSettings } from '../../offload/index.js';
import { readBodySegments, joinSegments } from '../../server/body-segments.js';
import { invalidJson, jsonBodyParser } from '../../server/json-body.js';
import { GatewayError } from '../../pipeline/errors.js';
import { bundleFromHeader } from '../../pipeline/apply-compression.js';
import { isJsonObject, NOT_AN_OBJECT } from '../../offload/compress-json.js';

export interface CompressRouteOptions {
  /** GATEWAY_COMPRESS_BODY_LIMIT_BYTES, else the listener's limit. */
  bodyLimit: number;
  /** The listener's JSON depth limit, applied to bodies parsed on a pool thread too. */
  jsonMaxDepth: number;
}

/** A body too big to parse on the event loop: its bytes, parsed on a pool thread with the rest. */
class UnparsedJson {
  constructor(readonly segments: Uint8Array[]) {}
}

/**
 * POST /v1/compress (spec 2.5, 4.1): any of the three request shapes, detected from the body;
 * no provider is called. The bundle comes from `compression_model` in the body or the
 * X-Gateway-Compression-Model header (the body wins when both are given).
 *
 * Whole agent transcripts come here (tens of MB where GATEWAY_COMPRESS_BODY_LIMIT_BYTES allows):
 * a body of GATEWAY_OFFLOAD_MIN_CHARS bytes or more is neither joined, decoded nor parsed on the
 * event loop but moved as segments to a pool thread, which parses, compresses and serializes the
 * answer; the answer goes out in segments too, so that no single TLS write encrypts megabytes.
 */
export function registerCompressRoute(app: FastifyInstance, options: CompressRouteOptions): void {
  app.register(async (scope) => {
    // This scope's own reader and parser (every content type, as the gateway's): the body is
    // read in segments that can move to a thread; a small one is parsed here as usual.
    const parse = jsonBodyParser({ maxDepth: options.jsonMaxDepth, lenient: true });
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', async (request: FastifyRequest, payload: Readable) => {
      const segments = await readBodySegments(request, payload, options.bodyLimit);
      const bytes = segments.reduce((n, segment) => n + segment.length, 0);
      if (bytes >= offloadSettings().minChars) return new UnparsedJson(segments);
      return new Promise((resolve, reject) =>
        parse(request, joinSegments(segments), (error, body) => (error ? reject(error) : resolve(body))),
      );
    });
    scope.post(
      '/v1/compress',
      { config: { allowXApiKey: true }, bodyLimit: options.bodyLimit },
      async (request, reply) => {
        const body = request.body;
        const bundle = bundleFromHeader(request.headers['x-gateway-compression-model']);
        if (body instanceof UnparsedJson) {
          const outcome = await compressJsonBytesOffloaded(body.segments, options.jsonMaxDepth, bundle);
          if (outcome.ok) {
            const { json } = outcome;
            const answer = Buffer.from(json.buffer, json.byteOffset, json.byteLength);
            return reply
              .type('application/json; charset=utf-8')
              .header('content-length', answer.length)
              .send(Readable.from(slices(answer)));
          }
          if (outcome.kind === 'invalid-json') throw invalidJson(outcome.message);
          throw new GatewayError('invalid_request', { message: outcome.message, param: outcome.param });
        }
        if (!isJsonObject(body)) throw new GatewayError('invalid_request', { message: NOT_AN_OBJECT });
        try {
          const result = await compressPayloadOffloaded(
            body,
            bundle && !('compression_model' in body) ? { bundle } : {},
          );
          return { ...result.body, compression: result.compression };
        } catch (error) {
          if (error instanceof CompressionInputError)
            throw new GatewayError('invalid_request', { message: error.message, param: error.param });
          throw error;
        }
      },
    );
  });
}

/** The answer in 256 KiB writes: each one encrypted by TLS on the event loop in well under a millisecond. */
function* slices(answer: Buffer): Generator<Buffer> {
  const size = 256 * 1024;
  for (let at = 0; at < answer.length; at += size) yield answer.subarray(at, at + size);
}
