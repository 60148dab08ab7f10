import { randomBase64Url } from '../../server/random-ids.js';
import type { FastifyInstance } from 'fastify';
import type { GatewayServices } from '../gateway-services.js';
import type { ProviderCompletion } from '../../canonical/completion.js';
import { openCall, serve, type AnswerCodec, type StreamSession } from '../../pipeline/index.js';
import { namedEventEncoder } from '../chat/named-event-stream.js';
import { withDefaultAuthor } from '../routes/default-author.js';
import { MessagesRequestSchema, type MessagesRequest } from './messages-schema.js';
import { convertMessagesRequest } from './convert-request.js';
import { formatMessage, type MessageIdentity } from './convert-response.js';
import { AnthropicStreamTranslator } from './stream-events.js';
import { sendAnthropicError } from './anthropic-errors.js';
import { anthropicRequestIdHook } from './anthropic-headers.js';
import { messagesOffer, nativeMessageBody, nativeMessagesEncoder } from './native-anthropic.js';

const ENDPOINT = '/v1/messages';

/**
 * POST /v1/messages: the Anthropic Messages API over every provider, a codec around the call
 * core. The request becomes a canonical chat request for admission (auth, key limits,
 * compression, tags, debug, metering are the core's); the answer is formatted as a Message or
 * its events. A model whose first target is Anthropic is served natively instead
 * (native-anthropic.ts: the client's body goes upstream as it is), unless gateway tools or a
 * pending id need the translated path. A bare model name (`claude-sonnet-4-5`) means
 * `anthropic/claude-sonnet-4-5`.
 */
export function registerMessagesRoute(app: FastifyInstance, services: GatewayServices): void {
  app.post<{ Body: MessagesRequest }>(
    ENDPOINT,
    {
      schema: { body: MessagesRequestSchema },
      config: { allowXApiKey: true },
      errorHandler: sendAnthropicError,
      bodyLimit: services.bodyLimits?.chatBytes,
      onRequest: anthropicRequestIdHook,
    },
    async (request, reply) => {
      // The conversion also validates every block, so both paths refuse the same malformed
      // requests; what only Anthropic runs (server tools, …) is refused on the translated path only.
      const { chat, nativeOnly } = convertMessagesRequest(
        request.body,
        withDefaultAuthor(request.body.model, 'anthropic'),
      );
      const offer = messagesOffer(request, request.body, nativeOnly);
      const call = await openCall(services, request, reply, ENDPOINT, chat, offer);
      return serve(call, new MessagesCodec(request.id, request.body));
    },
  );
}

/** The Messages wire format of one request's answer: a Message or its events, translated or Anthropic's own. */
class MessagesCodec implements AnswerCodec, MessageIdentity {
  readonly id = `msg_${randomBase64Url(12)}`;
  readonly model: string;

  constructor(
    private readonly requestId: string,
    private readonly body: MessagesRequest,
  ) {
    this.model = body.model;
  }

  completion(completion: ProviderCompletion, extras: Record<string, unknown>): unknown {
    return formatMessage(this, completion, extras);
  }

  events(session: StreamSession) {
    return namedEventEncoder(new AnthropicStreamTranslator(this), session, this.requestId);
  }

  nativeBody(answer: Record<string, unknown>, extras: Record<string, unknown>): unknown {
    return nativeMessageBody(answer, this.body, extras);
  }

  nativeEvents(session: StreamSession) {
    return nativeMessagesEncoder(this.requestId, this.body, session);
  }
}
