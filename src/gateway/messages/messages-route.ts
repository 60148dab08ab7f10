import { randomBase64Url } from '../../server/random-ids.js';
import type { FastifyInstance } from 'fastify';
import type { GatewayServices } from '../gateway-services.js';
import { answerJson, answerStream, openCall, relayStream, sendJson, type AdmitOptions } from '../../pipeline/index.js';
import type { GatewayError } from '../../pipeline/errors.js';
import { namedEventEncoder } from '../chat/named-event-stream.js';
import { withDefaultAuthor } from '../routes/default-author.js';
import { MessagesRequestSchema, type MessagesRequest } from './messages-schema.js';
import { convertMessagesRequest } from './convert-request.js';
import { formatMessage, type MessageIdentity } from './convert-response.js';
import { AnthropicStreamTranslator } from './stream-events.js';
import { sendAnthropicError } from './anthropic-errors.js';
import { anthropicRequestIdHook } from './anthropic-headers.js';
import { anthropicNativeRoute, nativeAdmission, nativeMessageBody, nativeMessagesEncoder } from './native-anthropic.js';

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
      const native = nativeAdmission(request, request.body);
      const options = refuseUntranslatable(native.options, nativeOnly);
      const call = await openCall(services, request, reply, ENDPOINT, chat, options);
      const identity: MessageIdentity = { id: `msg_${randomBase64Url(12)}`, model: request.body.model };
      const prepared = native.prepared();
      // What only Anthropic runs cannot fall back to another provider's translated path.
      const route = prepared ? { ...anthropicNativeRoute(call, prepared), translatable: !nativeOnly } : undefined;
      if (!request.body.stream) {
        const answer = await answerJson(call, route);
        return sendJson(
          call,
          answer.native
            ? nativeMessageBody(answer, request.body)
            : formatMessage(identity, answer.completion, answer.extras),
        );
      }
      const session = await answerStream(call, route);
      if (session.native)
        return relayStream(call, session.events, nativeMessagesEncoder(call, request.body, session.extras));
      const translator = new AnthropicStreamTranslator(identity);
      return relayStream(call, session.events, namedEventEncoder(translator, session, request.id));
    },
  );
}

/** Admission options that refuse, before anything is reserved, a translated request carrying what only Anthropic runs. */
function refuseUntranslatable(options: AdmitOptions, nativeOnly: GatewayError | undefined): AdmitOptions {
  if (!nativeOnly) return options;
  return {
    ...options,
    compressCanonical: async (context) => {
      const canonical = (await options.compressCanonical?.(context)) ?? true;
      if (canonical) throw nativeOnly;
      return canonical;
    },
  };
}
