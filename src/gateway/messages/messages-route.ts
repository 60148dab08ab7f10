import { randomBase64Url } from '../../server/random-ids.js';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { GatewayServices } from '../gateway-services.js';
import { admit, type AdmitOptions } from '../chat/admission.js';
import type { GatewayError } from '../errors.js';
import type { UpstreamTarget } from '../../providers/index.js';
import { executeJson, type Execution } from '../chat/execute.js';
import { streamNamedEvents } from '../chat/named-event-stream.js';
import { abortOnClientClose } from '../chat/client-abort.js';
import { withDefaultAuthor } from '../routes/default-author.js';
import { MessagesRequestSchema, type MessagesRequest } from './messages-schema.js';
import { convertMessagesRequest } from './convert-request.js';
import { formatMessage, type MessageIdentity } from './convert-response.js';
import { AnthropicStreamTranslator } from './stream-events.js';
import { sendAnthropicError } from './anthropic-errors.js';
import { anthropicRequestIdHook } from './anthropic-headers.js';
import { nativeAdmission, serveNativeMessages } from './native-anthropic.js';

const ENDPOINT = '/v1/messages';

type Decorate = (extras: Record<string, unknown>) => Record<string, unknown>;
const asIs: Decorate = (extras) => extras;

/**
 * POST /v1/messages: the Anthropic Messages API over every provider. The request becomes a
 * chat request and runs through the same admission and execution as /v1/chat/completions
 * (auth, key limits, compression, tags, debug, metering); only the wire format differs.
 * A model whose first target is Anthropic is served natively instead (native-anthropic.ts:
 * the client's body goes upstream as it is), unless gateway tools or a pending id need the
 * translated path. A bare model name (`claude-sonnet-4-5`) means `anthropic/claude-sonnet-4-5`.
 */
export function registerMessagesRoute(app: FastifyInstance, services: GatewayServices): void {
  app.post<{ Body: MessagesRequest }>(
    ENDPOINT,
    {
      schema: { body: MessagesRequestSchema },
      config: { allowXApiKey: true },
      errorHandler: sendAnthropicError,
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
      const admission = await admit(services, request, chat, refuseUntranslatable(native.options, nativeOnly));
      const execution: Execution = {
        services,
        request,
        admission,
        signal: abortOnClientClose(reply),
        endpoint: ENDPOINT,
      };
      const identity: MessageIdentity = { id: `msg_${randomBase64Url(12)}`, model: request.body.model };
      const translated = async (decorate: Decorate = asIs) => {
        if (!request.body.stream) {
          const { completion, extras } = await executeJson(execution);
          return reply.send(formatMessage(identity, completion, decorate(extras)));
        }
        return streamMessage(reply, execution, identity, decorate);
      };
      const prepared = native.prepared();
      if (prepared) {
        admission.compression = prepared.compression;
        // What only Anthropic runs cannot fall back to another provider's translated path.
        if (nativeOnly) admission.targets = leadingAnthropicTargets(admission.targets);
        return serveNativeMessages(reply, execution, request.body, prepared, translated);
      }
      return translated();
    },
  );
}

function leadingAnthropicTargets(targets: UpstreamTarget[]): UpstreamTarget[] {
  const split = targets.findIndex((target) => target.kind !== 'anthropic');
  return split < 0 ? targets : targets.slice(0, split);
}

/** Admission options that refuse, before anything is reserved, a translated request carrying what only Anthropic runs. */
function refuseUntranslatable(options: AdmitOptions, nativeOnly: GatewayError | undefined): AdmitOptions {
  if (!nativeOnly) return options;
  return {
    ...options,
    compressCanonical: (context) => {
      const canonical = options.compressCanonical?.(context) ?? true;
      if (canonical) throw nativeOnly;
      return canonical;
    },
  };
}

function streamMessage(
  reply: FastifyReply,
  execution: Execution,
  identity: MessageIdentity,
  decorate: Decorate = asIs,
): Promise<void> {
  return streamNamedEvents(reply, execution, new AnthropicStreamTranslator(identity), decorate);
}
