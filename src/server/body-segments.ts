import type { Readable } from 'node:stream';
import { errorCodes, type FastifyRequest } from 'fastify';

/** Bytes of each segment: a copy this size costs well under a millisecond. */
const SEGMENT_BYTES = 1024 * 1024;

/**
 * A request body read as a list of byte segments that own their memory (so they can be moved to
 * a worker thread), for routes that take bodies of tens of megabytes. Fastify's own reader
 * collects the socket's chunks and concatenates them once at the end: one copy of the whole body
 * in a single step of the event loop (50 MB: 25–60 ms with the page faults of the new buffer).
 * Here each chunk is copied into the current 1 MiB segment as it arrives. Same refusals as
 * Fastify's reader: 413 beyond `limit` (announced or received), 400 on a short or long body.
 */
export function readBodySegments(request: FastifyRequest, payload: Readable, limit: number): Promise<Uint8Array[]> {
  const declared = Number(request.headers['content-length']);
  if (declared > limit) return Promise.reject(new errorCodes.FST_ERR_CTP_BODY_TOO_LARGE());
  const segments: Uint8Array[] = [];
  let segment = new Uint8Array(
    Math.min(SEGMENT_BYTES, Number.isInteger(declared) ? Math.max(declared, 1) : SEGMENT_BYTES),
  );
  let used = 0;
  let received = 0;
  return new Promise((resolve, reject) => {
    const stop = () => {
      payload.removeListener('data', onData);
      payload.removeListener('end', onEnd);
      payload.removeListener('error', onEnd);
    };
    function onData(chunk: Buffer | string) {
      const data = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      received += data.length;
      if (received > limit) {
        stop();
        reject(new errorCodes.FST_ERR_CTP_BODY_TOO_LARGE());
        return;
      }
      for (let at = 0; at < data.length;) {
        if (used === segment.length) {
          segments.push(segment);
          segment = new Uint8Array(SEGMENT_BYTES);
          used = 0;
        }
        const n = Math.min(segment.length - used, data.length - at);
        segment.set(data.subarray(at, at + n), used);
        used += n;
        at += n;
      }
    }
    function onEnd(error?: Error & { statusCode?: number }) {
      stop();
      if (error) {
        if (!(typeof error.statusCode === 'number' && error.statusCode >= 400)) error.statusCode = 400;
        reject(error);
        return;
      }
      if (!Number.isNaN(declared) && received !== declared) {
        reject(new errorCodes.FST_ERR_CTP_INVALID_CONTENT_LENGTH());
        return;
      }
      if (used > 0) segments.push(used === segment.length ? segment : segment.subarray(0, used));
      resolve(segments);
    }
    payload.on('data', onData);
    payload.on('end', onEnd);
    payload.on('error', onEnd);
    payload.resume();
  });
}

/** The segments as one buffer (a copy): for bodies small enough to handle on the event loop. */
export function joinSegments(segments: readonly Uint8Array[]): Buffer {
  return segments.length === 1 ? Buffer.from(segments[0]!) : Buffer.concat(segments);
}
