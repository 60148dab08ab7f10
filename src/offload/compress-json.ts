import { compressPayload, CompressionInputError, type BundleName, type CompressResult } from '../compress/index.js';
import { jsonBodyError, parseJsonText } from '../server/json-body.js';

export const NOT_AN_OBJECT = 'The body must be a JSON object: a chat, messages-style or responses-style request.';

/** /v1/compress of a parsed body: the bundle from the header unless the body names one. */
export function compressBody(body: Record<string, unknown>, headerBundle: BundleName | undefined): CompressResult {
  return compressPayload(body, headerBundle && !('compression_model' in body) ? { bundle: headerBundle } : {});
}

export function isJsonObject(body: unknown): body is Record<string, unknown> {
  return typeof body === 'object' && body !== null && !Array.isArray(body);
}

/** The answer of /v1/compress for a body given as UTF-8 bytes, or the client error it gets. */
export type CompressJsonOutcome =
  | { ok: true; json: Uint8Array }
  | { ok: false; kind: 'invalid-json'; message: string }
  | { ok: false; kind: 'invalid-request'; message: string; param: string | null };

/**
 * /v1/compress from the body's bytes (segments: src/server/body-segments.ts) to the answer's
 * bytes: join, decode, parse (with the listener's
 * depth and number checks), compress, serialize, encode. A big body runs this on a pool thread
 * (src/offload/) with both byte arrays moved, not copied, across: neither the parse nor copies of
 * the object graph or of the text hold the event loop (a 50 MB body held it ~1 s that way).
 */
export function compressJsonBytes(
  segments: readonly Uint8Array[],
  maxDepth: number,
  headerBundle: BundleName | undefined,
): CompressJsonOutcome {
  let body: unknown;
  try {
    body = parseJsonText(Buffer.concat(segments).toString('utf8'), maxDepth);
  } catch (error) {
    return { ok: false, kind: 'invalid-json', message: jsonBodyError(error).message };
  }
  if (!isJsonObject(body)) return { ok: false, kind: 'invalid-request', message: NOT_AN_OBJECT, param: null };
  try {
    const result = compressBody(body, headerBundle);
    return {
      ok: true,
      json: new TextEncoder().encode(JSON.stringify({ ...result.body, compression: result.compression })),
    };
  } catch (error) {
    if (!(error instanceof CompressionInputError)) throw error;
    return { ok: false, kind: 'invalid-request', message: error.message, param: error.param };
  }
}
