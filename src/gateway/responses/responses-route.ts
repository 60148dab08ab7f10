import { randomHex } from '../../server/random-ids.js';
import type { FastifyInstance } from 'fastify';
import type { GatewayServices } from '../gateway-services.js';
import { answerJson, answerStream, openCall, relayStream, sendJson } from '../../pipeline/index.js';
import { namedEventEncoder } from '../chat/named-event-stream.js';
import { withDefaultAuthor } from '../routes/default-author.js';
import { ResponsesRequestSchema, type ResponsesRequest } from './responses-schema.js';
import { responsesToChat } from './convert-request.js';
import { formatCompletedResponse, type ResponseIdentity } from './convert-response.js';
import { ResponsesStreamTranslator } from './stream-events.js';

const ENDPOINT = '/v1/responses';

/**
 * POST /v1/responses: the OpenAI Responses API over every provider, stateless. A codec around
 * the call core: the request becomes a canonical chat request, the answer a Response object or
 * its events; errors use the gateway envelope, which is OpenAI's. A bare model name
 * (`gpt-5-codex`) means `openai/gpt-5-codex`.
 */
export function registerResponsesRoute(app: FastifyInstance, services: GatewayServices): void {
  app.post<{ Body: ResponsesRequest }>(
    ENDPOINT,
    { schema: { body: ResponsesRequestSchema } },
    async (request, reply) => {
      const chat = responsesToChat(request.body, withDefaultAuthor(request.body.model, 'openai'));
      const call = await openCall(services, request, reply, ENDPOINT, chat);
      const identity: ResponseIdentity = {
        id: `resp_${randomHex(16)}`,
        createdAt: Math.floor(call.admission.startedAt / 1000),
        model: request.body.model,
      };
      if (!request.body.stream) {
        const { completion, extras } = await answerJson(call);
        return sendJson(call, formatCompletedResponse(identity, request.body, completion, extras));
      }
      const session = await answerStream(call);
      const translator = new ResponsesStreamTranslator(identity, request.body);
      return relayStream(call, session.events, namedEventEncoder(translator, session, request.id));
    },
  );
}
