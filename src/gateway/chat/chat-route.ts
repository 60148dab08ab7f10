import type { FastifyInstance, FastifyReply } from 'fastify';
import { ChatRequestSchema, type ChatRequest } from '../../canonical/chat-request.js';
import type { GatewayServices } from '../gateway-services.js';
import { GatewayError } from '../errors.js';
import { admit } from './admission.js';
import { executeJson, executeStream, type Execution } from './execute.js';
import {
  ChunkFramer,
  formatChunk,
  formatCompletion,
  formatUsageChunk,
  type ChunkDelta,
  type CompletionIdentity,
} from './completion-format.js';
import { SseWriter, sseData } from './sse-writer.js';
import { usageCommitted } from './metering.js';
import { abortOnClientClose } from './client-abort.js';
import { randomBase64Url } from '../../server/random-ids.js';

const ENDPOINT = '/v1/chat/completions';

/** POST /v1/chat/completions: the OpenAI wire format over every provider (spec 2.1, 2.4). */
export function registerChatCompletionsRoute(app: FastifyInstance, services: GatewayServices): void {
  app.post<{ Body: ChatRequest }>(ENDPOINT, { schema: { body: ChatRequestSchema } }, async (request, reply) => {
    const admission = await admit(services, request, request.body);
    const execution: Execution = {
      services,
      request,
      admission,
      signal: abortOnClientClose(reply),
      endpoint: ENDPOINT,
    };
    const identity: CompletionIdentity = {
      id: `chatcmpl-${randomBase64Url(12)}`,
      created: Math.floor(admission.startedAt / 1000),
      model: request.body.model,
    };
    if (!request.body.stream) {
      const { completion, extras } = await executeJson(execution);
      return reply.send(formatCompletion(identity, completion, extras));
    }
    return streamChat(reply, execution, identity);
  });
}

async function streamChat(reply: FastifyReply, execution: Execution, identity: CompletionIdentity): Promise<void> {
  const session = await executeStream(execution);
  reply.hijack();
  const writer = new SseWriter(reply.raw);
  writer.start({ 'x-request-id': execution.request.id });
  const chunks = new ChunkFramer(identity);
  try {
    await writer.sendFramed(chunks.delta({ role: 'assistant', content: '' }));
    for await (const event of session.events) {
      if (event.type === 'delta' && event.content && !event.refusal && !event.toolCalls?.length) {
        await writer.sendFramed(chunks.content(event.content));
      } else if (event.type === 'delta') {
        const delta: ChunkDelta = {};
        if (event.content) delta.content = event.content;
        if (event.refusal) delta.refusal = event.refusal;
        if (event.toolCalls?.length) delta.tool_calls = event.toolCalls;
        await writer.sendFramed(chunks.delta(delta));
      } else if (event.type === 'finish') {
        if (session.gatewayExtras)
          await writer.send({ ...formatChunk(identity, {}, event.finishReason), ...session.gatewayExtras() });
        else await writer.sendFramed(chunks.finish(event.finishReason));
      }
      if (writer.isClosed) break;
    }
    if (writer.isClosed) return;
    const usage = execution.admission.body.stream_options?.include_usage
      ? sseData(formatUsageChunk(identity, session.usage(), session.extras()))
      : '';
    // The last chunks, the usage chunk, [DONE] and the end of the response leave in one write.
    writer.holdForEnd();
    await usageCommitted(execution.request);
    writer.done(usage);
  } catch (error) {
    // Headers are sent: a failure mid-stream is reported as a last event in the gateway envelope.
    const envelope =
      error instanceof GatewayError ? error.toEnvelope() : new GatewayError('internal_error').toEnvelope();
    writer.end(sseData(envelope));
  }
}
