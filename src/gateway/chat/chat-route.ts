import type { FastifyInstance } from 'fastify';
import { ChatRequestSchema, type ChatRequest } from '../../canonical/chat-request.js';
import type { ProviderCompletion, ProviderStreamEvent } from '../../canonical/completion.js';
import type { GatewayServices } from '../gateway-services.js';
import {
  openCall,
  serve,
  type AnswerCodec,
  type Call,
  type StreamSession,
  type StreamEncoder,
} from '../../pipeline/index.js';
import {
  ChunkFramer,
  formatChunk,
  formatCompletion,
  formatFinalChunk,
  formatUsageChunk,
  type ChunkDelta,
  type CompletionIdentity,
} from './completion-format.js';
import { sseData } from '../../pipeline/sse-writer.js';
import { randomBase64Url } from '../../server/random-ids.js';

const ENDPOINT = '/v1/chat/completions';

/**
 * POST /v1/chat/completions: the OpenAI wire format over every provider (spec 2.1, 2.4). A codec
 * around the call core: the body is already the canonical request; the answer is formatted as a
 * chat completion or as its chunks.
 */
export function registerChatCompletionsRoute(app: FastifyInstance, services: GatewayServices): void {
  const bodyLimit = services.bodyLimits?.chatBytes;
  app.post<{ Body: ChatRequest }>(
    ENDPOINT,
    { schema: { body: ChatRequestSchema }, bodyLimit },
    async (request, reply) => {
      const call = await openCall(services, request, reply, ENDPOINT, request.body);
      return serve(call, new ChatCompletionCodec(call, request.body));
    },
  );
}

/**
 * The chat completions wire format of one request's answer: a chat completion, or its chunks.
 * Also the answer's identity (one object per request, methods on the prototype).
 */
class ChatCompletionCodec implements AnswerCodec, CompletionIdentity {
  readonly id = `chatcmpl-${randomBase64Url(12)}`;
  readonly created: number;
  readonly model: string;

  constructor(
    private readonly call: Call,
    private readonly body: ChatRequest,
  ) {
    this.created = Math.floor(call.admission.startedAt / 1000);
    this.model = body.model;
  }

  completion(completion: ProviderCompletion, extras: Record<string, unknown>): unknown {
    return formatCompletion(this, completion, extras);
  }

  events(session: StreamSession): StreamEncoder<ProviderStreamEvent> {
    // The gateway members (compression, debug) ride on the final chunk: the usage chunk when the
    // client asked for one, else the finish chunk, which then waits for the end of the stream.
    const includeUsage = this.body.stream_options?.include_usage === true;
    const { plan, admission } = this.call;
    const extrasOnFinish = !includeUsage && (plan.compression !== undefined || admission.debug);
    return chunkEncoder(this, session, includeUsage, extrasOnFinish);
  }
}

/** Chat completion chunks; with gateway tools, their members ride on the finish chunk too. */
function chunkEncoder(
  identity: CompletionIdentity,
  session: StreamSession,
  includeUsage: boolean,
  extrasOnFinish: boolean,
): StreamEncoder<ProviderStreamEvent> {
  const chunks = new ChunkFramer(identity);
  let heldFinish: Record<string, unknown> | undefined;
  return {
    start: () => chunks.delta({ role: 'assistant', content: '' }),
    push(event) {
      if (event.type === 'delta' && event.content && !event.refusal && !event.toolCalls?.length)
        return chunks.content(event.content);
      if (event.type === 'delta') {
        const delta: ChunkDelta = {};
        if (event.content) delta.content = event.content;
        if (event.refusal) delta.refusal = event.refusal;
        if (event.toolCalls?.length) delta.tool_calls = event.toolCalls;
        return chunks.delta(delta);
      }
      if (event.type === 'finish') {
        const gateway = session.gatewayExtras();
        const finish = gateway ? { ...formatChunk(identity, {}, event.finishReason), ...gateway } : undefined;
        if (extrasOnFinish) {
          heldFinish = finish ?? formatChunk(identity, {}, event.finishReason);
          return '';
        }
        return finish ? sseData(finish) : chunks.finish(event.finishReason);
      }
      return '';
    },
    finish() {
      let last = '';
      if (includeUsage) last = sseData(formatUsageChunk(identity, session.usage(), session.extras()));
      else if (extrasOnFinish) last = sseData({ ...(heldFinish ?? formatFinalChunk(identity)), ...session.extras() });
      // The last chunks, the usage chunk, [DONE] and the end of the response leave in one write.
      return `${last}data: [DONE]\n\n`;
    },
    // Headers are sent: a failure mid-stream is reported as a last event in the gateway envelope.
    fail: (error) => sseData(error.toEnvelope()),
  };
}
