import { randomHex } from '../../server/random-ids.js';
import type { FastifyInstance } from 'fastify';
import type { GatewayServices } from '../gateway-services.js';
import { answerJson, answerStream, openCall, relayStream, sendJson } from '../../pipeline/index.js';
import { namedEventEncoder } from '../chat/named-event-stream.js';
import { withDefaultAuthor } from '../routes/default-author.js';
import { ResponsesRequestSchema, type ResponsesRequest } from './responses-schema.js';
import { formatCompletedResponse, type ResponseIdentity } from './convert-response.js';
import { ResponsesStreamTranslator } from './stream-events.js';
import {
  admissionRequest,
  nativeResponseBody,
  nativeResponsesAdmission,
  nativeResponsesEncoder,
  openaiNativeRoute,
} from './native-openai.js';

const ENDPOINT = '/v1/responses';

/**
 * POST /v1/responses: the OpenAI Responses API over every provider, a codec around the call
 * core. The request becomes a canonical chat request for admission, the answer a Response
 * object or its events; errors use the gateway envelope, which is OpenAI's. A model whose first
 * target serves the Responses API is served natively instead (native-openai.ts: the client's
 * body goes upstream as it is), unless gateway tools or a pending id need the translated path.
 * A bare model name (`gpt-5-codex`) means `openai/gpt-5-codex`.
 */
export function registerResponsesRoute(app: FastifyInstance, services: GatewayServices): void {
  app.post<{ Body: ResponsesRequest }>(
    ENDPOINT,
    { schema: { body: ResponsesRequestSchema }, bodyLimit: services.bodyLimits?.chatBytes },
    async (request, reply) => {
      const { chat, untranslatable } = admissionRequest(request.body, withDefaultAuthor(request.body.model, 'openai'));
      const native = nativeResponsesAdmission(request, request.body, untranslatable);
      const call = await openCall(services, request, reply, ENDPOINT, chat, native.options);
      const identity: ResponseIdentity = {
        id: `resp_${randomHex(16)}`,
        createdAt: Math.floor(call.admission.startedAt / 1000),
        model: request.body.model,
      };
      const prepared = native.prepared();
      const route = prepared ? openaiNativeRoute(call, prepared) : undefined;
      if (!request.body.stream) {
        const answer = await answerJson(call, route);
        return sendJson(
          call,
          answer.native
            ? nativeResponseBody(answer, request.body)
            : formatCompletedResponse(identity, request.body, answer.completion, answer.extras),
        );
      }
      const session = await answerStream(call, route);
      if (session.native)
        return relayStream(call, session.events, nativeResponsesEncoder(request.body, session.extras));
      const translator = new ResponsesStreamTranslator(identity, request.body);
      return relayStream(call, session.events, namedEventEncoder(translator, session, request.id));
    },
  );
}
