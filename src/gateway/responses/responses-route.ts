import { randomHex } from '../../server/random-ids.js';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { GatewayServices } from '../gateway-services.js';
import { admit } from '../chat/admission.js';
import { executeJson, type Execution } from '../chat/execute.js';
import { streamNamedEvents } from '../chat/named-event-stream.js';
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
  app.post<{ Body: ResponsesRequest }>(
    ENDPOINT,
    { schema: { body: ResponsesRequestSchema }, bodyLimit: services.bodyLimits?.chatBytes },
    async (request, reply) => {
      const chat = responsesToChat(request.body, withDefaultAuthor(request.body.model, 'openai'));
      const admission = await admit(services, request, chat);
      const execution: Execution = {
        services,
        request,
        admission,
        signal: abortOnClientClose(reply),
        endpoint: ENDPOINT,
      };
      const identity: ResponseIdentity = {
        id: `resp_${randomHex(16)}`,
        createdAt: Math.floor(admission.startedAt / 1000),
        model: request.body.model,
      };
      if (!request.body.stream) {
        const { completion, extras } = await executeJson(execution);
        return reply.send(formatCompletedResponse(identity, request.body, completion, extras));
      }
      return streamResponse(reply, execution, identity, request.body);
    },
  );
}

function streamResponse(
  reply: FastifyReply,
  execution: Execution,
  identity: ResponseIdentity,
  body: ResponsesRequest,
): Promise<void> {
  return streamNamedEvents(reply, execution, new ResponsesStreamTranslator(identity, body));
}
