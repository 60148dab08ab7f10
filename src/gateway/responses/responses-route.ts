import { randomHex } from '../../server/random-ids.js';
import type { FastifyInstance } from 'fastify';
import type { GatewayServices } from '../gateway-services.js';
import type { ProviderCompletion } from '../../canonical/completion.js';
import { openCall, serve, type AnswerCodec, type Call, type StreamSession } from '../../pipeline/index.js';
import { namedEventEncoder } from '../chat/named-event-stream.js';
import { withDefaultAuthor } from '../routes/default-author.js';
import { ResponsesRequestSchema, type ResponsesRequest } from './responses-schema.js';
import { formatCompletedResponse, type ResponseIdentity } from './convert-response.js';
import { ResponsesStreamTranslator } from './stream-events.js';
import { admissionRequest, nativeResponseBody, nativeResponsesEncoder, responsesOffer } from './native-openai.js';

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
      const call = await openCall(
        services,
        request,
        reply,
        ENDPOINT,
        chat,
        responsesOffer(request.body, untranslatable),
      );
      return serve(call, new ResponsesCodec(call, request.body));
    },
  );
}

/** The Responses wire format of one request's answer: a Response or its events, translated or OpenAI's own. */
class ResponsesCodec implements AnswerCodec, ResponseIdentity {
  readonly id = `resp_${randomHex(16)}`;
  readonly createdAt: number;
  readonly model: string;
  private readonly requestId: string;

  constructor(
    call: Call,
    private readonly body: ResponsesRequest,
  ) {
    this.createdAt = Math.floor(call.admission.startedAt / 1000);
    this.model = body.model;
    this.requestId = call.request.id;
  }

  completion(completion: ProviderCompletion, extras: Record<string, unknown>): unknown {
    return formatCompletedResponse(this, this.body, completion, extras);
  }

  events(session: StreamSession) {
    return namedEventEncoder(new ResponsesStreamTranslator(this, this.body), session, this.requestId);
  }

  nativeBody(answer: Record<string, unknown>, extras: Record<string, unknown>): unknown {
    return nativeResponseBody(answer, this.body, extras);
  }

  nativeEvents(session: StreamSession) {
    return nativeResponsesEncoder(this.body, session);
  }
}
