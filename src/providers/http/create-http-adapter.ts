import type { ChatRequest } from '../../canonical/chat-request.js';
import type {
  CallOptions,
  NativeWire,
  ProviderAdapter,
  ProviderKind,
  UpstreamTarget,
  WireCodec,
  WireFormat,
} from '../types.js';
import type { ProviderCompletion, ProviderStreamEvent } from '../../canonical/completion.js';
import { openRawCall, readRawText } from './raw-call.js';
import { readRawEvents } from './raw-events.js';
import { parseJson } from '../shared/upstream-errors.js';

/**
 * A provider adapter over HTTP: the codec builds and parses the provider's wire format, and
 * `raw-call.ts` does the transport (pooled keep-alive dispatcher, first-byte and between-chunks
 * watchdogs, abort linked to the client, bounded bodies, error mapping). `native` lists the client
 * wire formats the provider also accepts as they are.
 */
export function createHttpAdapter(
  kind: ProviderKind,
  codec: WireCodec,
  native?: Partial<Record<WireFormat, NativeWire>>,
): ProviderAdapter {
  async function complete(req: ChatRequest, target: UpstreamTarget, options: CallOptions): Promise<ProviderCompletion> {
    const call = await openRawCall(
      codec.buildRequest(req, target, { stream: false }),
      target,
      options,
      codec.parseError,
    );
    const text = await readRawText(call);
    try {
      return codec.parseResponse(parseJson(text, 'upstream response'));
    } catch (err) {
      throw call.toError(err);
    }
  }

  async function stream(
    req: ChatRequest,
    target: UpstreamTarget,
    options: CallOptions,
  ): Promise<AsyncIterable<ProviderStreamEvent>> {
    const call = await openRawCall(
      codec.buildRequest(req, target, { stream: true }),
      target,
      options,
      codec.parseError,
    );
    return readRawEvents(call, codec.createStreamParser());
  }

  return native ? { kind, complete, stream, native } : { kind, complete, stream };
}
