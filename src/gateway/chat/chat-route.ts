import { randomBytes } from 'node:crypto';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { ChatRequestSchema, type ChatRequest } from '../schemas/chat-request.js';
import type { GatewayServices } from '../gateway-services.js';
import { GatewayError } from '../errors.js';
import { admit } from './admission.js';
import { executeJson, executeStream, type Execution } from './execute.js';
import { formatChunk, formatCompletion, formatUsageChunk, type CompletionIdentity } from './completion-format.js';
import { SseWriter } from './sse-writer.js';
import { usageCommitted } from './metering.js';
import { abortOnClientClose } from './client-abort.js';

const ENDPOINT = '/v1/chat/completions';

/** POST /v1/chat/completions: the OpenAI wire format over every provider (spec 2.1, 2.4). */
export function registerChatCompletionsRoute(app: FastifyInstance, services: GatewayServices): void {
  app.post<{ Body: ChatRequest }>(ENDPOINT, { schema: { body: ChatRequestSchema } }, async (request, reply) => {
    const admission = await admit(services, request, request.body);
    const execution: Execution = { services, request, admission, signal: abortOnClientClose(reply), endpoint: ENDPOINT };
    const identity: CompletionIdentity = {
      id: `chatcmpl-${randomBytes(12).toString('base64url')}`,
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
  try {
    await writer.send(formatChunk(identity, { role: 'assistant', content: '' }, null));
    for await (const event of session.events) {
      if (event.type === 'delta') {
        const delta: Parameters<typeof formatChunk>[1] = {};
        if (event.content) delta.content = event.content;
        if (event.refusal) delta.refusal = event.refusal;
        if (event.toolCalls?.length) delta.tool_calls = event.toolCalls;
        await writer.send(formatChunk(identity, delta, null));
      } else if (event.type === 'finish') {
        await writer.send({ ...formatChunk(identity, {}, event.finishReason), ...session.gatewayExtras?.() });
      }
      if (writer.isClosed) break;
    }
    if (writer.isClosed) return;
    if (execution.admission.body.stream_options?.include_usage) {
      await writer.send(formatUsageChunk(identity, session.usage(), session.extras()));
    }
    await usageCommitted(execution.request);
    await writer.done();
  } catch (error) {
    // Headers are sent: a failure mid-stream is reported as a last event in the gateway envelope.
    const envelope = error instanceof GatewayError ? error.toEnvelope() : new GatewayError('internal_error').toEnvelope();
    await writer.send(envelope);
    writer.end();
  }
}
