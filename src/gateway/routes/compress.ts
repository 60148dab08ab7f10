import { Readable } from 'node:stream';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { cachePricingOfModel } from '../../catalogue/cache-pricing.js';
import { compressPayload, CompressionInputError, isCompressionModel } from '../../compress/index.js';
import { sessionIdFrom } from '../../compress/session-headers.js';
import { compressConversationRequest } from '../../compress/conversation-request.js';
import {
  compressConversationOffloaded,
  compressJsonBytesOffloaded,
  compressPayloadOffloaded,
  offloadSettings,
} from '../../offload/index.js';
import { readBodySegments, joinSegments } from '../../server/body-segments.js';
import { invalidJson, jsonBodyParser } from '../../server/json-body.js';
import { GatewayError } from '../../pipeline/errors.js';
import {
  bundleFromHeader,
  cacheManagementFrom,
  outputBrevityAsked,
  toolSurfaceFrom,
} from '../../pipeline/apply-compression.js';
import { withBrevityInstruction } from '../../pipeline/output-brevity.js';
import { isJsonObject, NOT_AN_OBJECT } from '../../offload/compress-json.js';
import type { GatewayServices } from '../gateway-services.js';

/**
 * A body this big is compressed from its bytes on a pool thread, without its conversation's
 * state: the stateful engine reads and writes the store, so it runs on the event loop, where a
 * body parses and compresses in ~2–4 ms per 100k tokens. Below this size (about 2M tokens) the
 * route makes the chat path's decisions; a bigger transcript is not a live agent turn.
 */
const STATELESS_MIN_BYTES = 8 * 1024 * 1024;

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
 * a body of STATELESS_MIN_BYTES (and GATEWAY_OFFLOAD_MIN_CHARS) or more is neither joined,
 * decoded nor parsed on the event loop but moved as segments to a pool thread, which parses,
 * compresses and serializes the answer; the answer goes out in segments too, so that no single
 * TLS write encrypts megabytes.
 */
export function registerCompressRoute(
  app: FastifyInstance,
  options: CompressRouteOptions,
  services?: Pick<GatewayServices, 'catalogue' | 'compression'>,
): void {
  app.register(async (scope) => {
    // This scope's own reader and parser (every content type, as the gateway's): the body is
    // read in segments that can move to a thread; a small one is parsed here as usual.
    const parse = jsonBodyParser({ maxDepth: options.jsonMaxDepth, lenient: true });
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', async (request: FastifyRequest, payload: Readable) => {
      const segments = await readBodySegments(request, payload, options.bodyLimit);
      const bytes = segments.reduce((n, segment) => n + segment.length, 0);
      if (bytes >= Math.max(offloadSettings().minChars, STATELESS_MIN_BYTES)) return new UnparsedJson(segments);
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
        // As on the chat path, so the compressed body and its conversation are the ones the chat path would make.
        const payload = outputBrevityAsked(request, request.apiKey.outputBrevity) ? withBrevityInstruction(body) : body;
        const manageCache = cacheManagementFrom(request.headers['x-gateway-cache-breakpoints']);
        const toolSurface = toolSurfaceFrom(request.headers['x-gateway-tool-surface']) ?? request.apiKey.toolSurface;
        try {
          const named = bundle && !('compression_model' in payload) ? bundle : undefined;
          const model = typeof payload.model === 'string' ? services?.catalogue.resolve(payload.model) : undefined;
          const target = model?.routes[0]?.provider;
          if (!model || !target) {
            const result = await compressPayloadOffloaded(payload, named ? { bundle: named } : {});
            return { ...result.body, compression: result.compression };
          }
          // When `model` names a catalogue model, the request is compressed as part of its
          // conversation, exactly as the chat path would (same state, same rewrite decisions), so
          // a client that calls its provider itself gets the same stable prefixes. Its own cache
          // hints are added only with `X-Gateway-Cache-Breakpoints: on`.
          const requested =
            named ?? (isCompressionModel(payload.compression_model) ? payload.compression_model : undefined);
          if (payload.compression_model !== undefined && requested === undefined) compressPayload(payload); // names the bad value
          const result = await compressConversationRequest(payload, {
            apiKeyId: request.apiKey.id,
            sessionId: sessionIdFrom(request.headers),
            compress: true,
            bundle: requested,
            provider: { kind: target.kind, id: target.id, baseUrl: target.base_url },
            pricing: cachePricingOfModel(model),
            manageCache: manageCache ?? request.apiKey.cacheBreakpoints,
            addCacheHints: manageCache === true,
            store: services?.compression,
            toolSurface,
            runEngine: compressConversationOffloaded,
            now: Date.now(),
            onStoreError: (error) => request.log.warn({ err: error }, 'compression conversation state unavailable'),
          });
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
