import type { ChatRequest } from '../../gateway/schemas/chat-request.js';
import type { CallOptions, ProviderAdapter, ProviderCompletion, ProviderKind, ProviderStreamEvent, UpstreamTarget, WireCodec } from '../types.js';
import { openRawCall, readRawSse, readRawText } from './raw-call.js';
import { parseJson } from '../shared/upstream-errors.js';

/**
 * A provider adapter over HTTP: the codec builds and parses the provider's wire format, and
 * `raw-call.ts` does the transport (pooled keep-alive dispatcher, first-byte and between-chunks
 * watchdogs, abort linked to the client, bounded bodies, error mapping).
 */
export function createHttpAdapter(kind: ProviderKind, codec: WireCodec): ProviderAdapter {
  async function complete(req: ChatRequest, target: UpstreamTarget, options: CallOptions): Promise<ProviderCompletion> {
    const call = await openRawCall(codec.buildRequest(req, target, { stream: false }), target, options, codec.parseError);
    const text = await readRawText(call);
    try {
      return codec.parseResponse(parseJson(text, 'upstream response'));
    } catch (err) {
      throw call.toError(err);
    }
  }

  async function* events(call: Awaited<ReturnType<typeof openRawCall>>): AsyncGenerator<ProviderStreamEvent> {
    const parser = codec.createStreamParser();
    try {
      for await (const sse of readRawSse(call)) {
        for (const event of parser.push(sse)) {
          // Events already parsed must not trickle out after an abort.
          if (call.aborted) throw new Error('aborted');
          yield event;
        }
      }
      for (const event of parser.end()) yield event;
    } catch (err) {
      // readRawSse has already aborted the upstream on early exit or error.
      call.abort();
      throw call.toError(err);
    }
  }

  async function stream(req: ChatRequest, target: UpstreamTarget, options: CallOptions): Promise<AsyncIterable<ProviderStreamEvent>> {
    const call = await openRawCall(codec.buildRequest(req, target, { stream: true }), target, options, codec.parseError);
    return events(call);
  }

  return { kind, complete, stream };
}
