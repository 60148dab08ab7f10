import { usageCommitted } from '../chat/metering.js';
import { randomBytes } from 'node:crypto';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { GatewayServices } from '../gateway-services.js';
import { GatewayError } from '../errors.js';
import { admit } from '../chat/admission.js';
import { executeJson, executeStream, type Execution } from '../chat/execute.js';
import { SseWriter } from '../chat/sse-writer.js';
import { abortOnClientClose } from '../chat/client-abort.js';
import { withDefaultAuthor } from '../routes/default-author.js';
import { ResponsesRequestSchema, type ResponsesRequest } from './responses-schema.js';
import { responsesToChat } from './convert-request.js';
import { formatCompletedResponse, type ResponseIdentity } from './convert-response.js';
import { ResponsesStreamTranslator } from './stream-events.js';

const ENDPOINT = '/v1/responses';

/**
 * POST /v1/responses: the OpenAI Responses API over every provider, stateless. The request
 * becomes a chat request and runs through the same admission and execution as
 * /v1/chat/completions; errors use the gateway envelope, which is OpenAI's. A bare model name
 * (`gpt-5-codex`) means `openai/gpt-5-codex`.
 */
export function registerResponsesRoute(app: FastifyInstance, services: GatewayServices): void {
  app.post<{ Body: ResponsesRequest }>(ENDPOINT, { schema: { body: ResponsesRequestSchema } }, async (request, reply) => {
    const chat = responsesToChat(request.body, withDefaultAuthor(request.body.model, 'openai'));
    const admission = await admit(services, request, chat);
    const execution: Execution = { services, request, admission, signal: abortOnClientClose(reply), endpoint: ENDPOINT };
    const identity: ResponseIdentity = {
      id: `resp_${randomBytes(16).toString('hex')}`,
      createdAt: Math.floor(admission.startedAt / 1000),
      model: request.body.model,
    };
    if (!request.body.stream) {
      const { completion, extras } = await executeJson(execution);
      return reply.send(formatCompletedResponse(identity, request.body, completion, extras));
    }
    return streamResponse(reply, execution, identity, request.body);
  });
}

async function streamResponse(reply: FastifyReply, execution: Execution, identity: ResponseIdentity, body: ResponsesRequest): Promise<void> {
  const session = await executeStream(execution);
  reply.hijack();
  const writer = new SseWriter(reply.raw);
  writer.start({ 'x-request-id': execution.request.id });
  const translator = new ResponsesStreamTranslator(identity, body);
  const send = async (events: ReturnType<ResponsesStreamTranslator['push']>) => {
    for (const [name, data] of events) await writer.sendEvent(name, data);
  };
  try {
    await send(translator.start());
    for await (const event of session.events) {
      await send(translator.push(event));
      if (writer.isClosed) break;
    }
    if (writer.isClosed) return;
    await usageCommitted(execution.request);
    await send(translator.finish(session.usage(), session.extras()));
    writer.end();
  } catch (error) {
    const gatewayError = error instanceof GatewayError ? error : new GatewayError('internal_error');
    await send(translator.fail({ code: gatewayError.code, message: gatewayError.message }));
    writer.end();
  }
}
