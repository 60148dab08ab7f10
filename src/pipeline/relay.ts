import type { FastifyReply } from 'fastify';
import type { Call } from './call.js';
import { GatewayError } from './errors.js';
import { pendingUsageCommit, usageCommitted } from './meter.js';
import { SseWriter } from './sse-writer.js';
import { batchesOf } from '../providers/index.js';

/**
 * Relay: what leaves for the client. Each endpoint's codec says how its wire format frames
 * events; the core writes them with backpressure, holds the last bytes until the usage row is
 * committed, and ends a stream that failed after its headers with the surface's error event.
 */
export interface StreamEncoder<E> {
  /** Send the headers at once rather than with the first event (a native first event may be slow to come). */
  readonly flushHeaders?: boolean;
  /** Framed events sent before the first upstream event ('' for none). */
  start(): string;
  /** Framed events for one upstream event ('' for none). */
  push(event: E): string;
  /** The stream's last framed events, sent with the end of the response once the usage row is committed. */
  finish(): string;
  /** The framed events that end a stream which failed after its headers were sent. */
  fail(error: GatewayError): string;
}

/**
 * A JSON answer, with the headers naming who answered; it leaves once its usage row is committed.
 * Written on the raw response as a stream's are: Fastify's generic send (serializer lookup,
 * onSend hooks, status and payload checks) cost ~3 % of a JSON request's CPU, for the same
 * bytes: the headers Fastify would set (content type and length, `x-request-id`) and those set
 * on the reply or the raw response before (Anthropic's `request-id`).
 */
export function sendJson(call: Call, body: unknown): FastifyReply {
  const { reply, request } = call;
  const payload = JSON.stringify(body);
  call.capture?.answered('json', payload);
  // `getHeaders` returns a new object: the answer's headers are added to it, not to a third copy.
  const headers = reply.getHeaders() as Record<string, string | number | string[]>;
  call.addAnswerHeaders(headers);
  headers['content-type'] = 'application/json; charset=utf-8';
  headers['x-request-id'] = request.id;
  headers['content-length'] = Buffer.byteLength(payload);
  reply.hijack();
  const respond = () => reply.raw.writeHead(reply.statusCode, headers).end(payload);
  const committed = pendingUsageCommit(request);
  if (committed) void committed.then(respond);
  else respond();
  return reply;
}

/**
 * Streams `events` (already metered by the core as they are consumed) to the client, a batch
 * at a time when the source reads in batches (EventBatches): the framed events of one upstream
 * read go to the writer together. A client that leaves stops the reading, which aborts the
 * upstream; the request is then metered 499. An exception anywhere ends the stream with the
 * encoder's error event; one that is not a gateway error is logged with its stack
 * (Call.toClientError).
 */
export async function relayStream<E>(call: Call, events: AsyncIterable<E>, encoder: StreamEncoder<E>): Promise<void> {
  const { reply, request } = call;
  reply.hijack();
  const writer = new SseWriter(reply.raw);
  writer.start({ 'x-request-id': request.id, ...call.answerHeaders() }, encoder.flushHeaders ? { flush: true } : {});
  const batches = batchesOf(events);
  let reading = true;
  try {
    const capture = call.capture;
    const opening = encoder.start();
    capture?.answered('stream', opening);
    if (opening) await writer.sendFramed(opening);
    for (let batch = await batches.nextBatch(); batch !== undefined; batch = await batches.nextBatch()) {
      let framed = '';
      try {
        for (const event of batch) framed += encoder.push(event);
      } catch (error) {
        throw call.consumerFailed(error);
      }
      capture?.answered('stream', framed);
      if (framed) await writer.sendFramed(framed);
      if (writer.isClosed) break;
    }
    // Ended, or the client left (break): either way nothing more is read.
    if (writer.isClosed) return;
    reading = false;
    writer.holdForEnd();
    await usageCommitted(request);
    // The last events and the end of the response leave in one write.
    const last = encoder.finish();
    capture?.answered('stream', last);
    writer.end(last);
  } catch (error) {
    // An encoder that failed stops the reading: the upstream is aborted and the request settled
    // (with the encoder's error) before the error event leaves.
    if (reading) batches.cancel();
    reading = false;
    const clientError = error instanceof GatewayError ? error : call.toClientError(error);
    const failed = encoder.fail(clientError);
    call.capture?.answered('stream', failed);
    writer.end(failed);
  } finally {
    // Stopped before the end because the client left: the upstream is aborted, the request settled as 499.
    if (reading) batches.cancel();
  }
}
