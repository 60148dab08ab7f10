import type { FastifyInstance } from 'fastify';
import { MODEL_ID_PATTERN } from '../../catalogue/catalogue.js';
import { countRequestTokensOffloaded } from '../../offload/index.js';
import { tokenizerForModel } from '../../tokenize/index.js';
import { GatewayError } from '../../pipeline/errors.js';
import { withDefaultAuthor } from '../routes/default-author.js';
import { MessagesCountTokensSchema, type MessagesCountTokensRequest } from './messages-schema.js';
import { sendAnthropicError } from './anthropic-errors.js';
import { anthropicRequestIdHook } from './anthropic-headers.js';

/**
 * POST /v1/messages/count_tokens in Anthropic's shape: a Messages body in, `{input_tokens}` out.
 * Like /v1/count_tokens, an estimate from the gateway's tokenizers; no provider is called.
 */
/** `bodyLimit`: GATEWAY_COUNT_TOKENS_BODY_LIMIT_BYTES; undefined, the listener's. */
export function registerMessagesCountTokensRoute(app: FastifyInstance, bodyLimit?: number): void {
  app.post<{ Body: MessagesCountTokensRequest }>(
    '/v1/messages/count_tokens',
    {
      schema: { body: MessagesCountTokensSchema },
      config: { allowXApiKey: true },
      errorHandler: sendAnthropicError,
      bodyLimit,
      onRequest: anthropicRequestIdHook,
    },
    async (request) => {
      const body = request.body;
      const model = withDefaultAuthor(body.model, 'anthropic');
      if (!MODEL_ID_PATTERN.test(model)) {
        throw new GatewayError('bad_model_id', {
          message: `Model id "${body.model.slice(0, 80)}" must be a model name or {author_id}/{model_id}.`,
          param: 'model',
        });
      }
      return {
        input_tokens: await countRequestTokensOffloaded(
          { messages: body.messages, system: body.system, tools: body.tools },
          tokenizerForModel(model),
        ),
      };
    },
  );
}
