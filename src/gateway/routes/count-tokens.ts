import type { FastifyInstance } from 'fastify';
import { Type, type Static } from '@sinclair/typebox';
import { MODEL_ID_PATTERN } from '../../catalogue/catalogue.js';
import { countRequestTokensOffloaded } from '../../offload/index.js';
import { isTokenizerName, tokenizerForModel, TOKENIZERS } from '../../tokenize/index.js';
import { GatewayError } from '../../pipeline/errors.js';

/** Spec 2.6. `tokenizer` is a plain string here so that a bad value gets `invalid_tokenizer`, not a generic 400. */
const CountTokensBodySchema = Type.Object(
  {
    model: Type.String({ minLength: 1, maxLength: 256 }),
    messages: Type.Optional(Type.Array(Type.Object({}, { additionalProperties: true }), { maxItems: 10_000 })),
    system: Type.Optional(Type.Union([Type.String(), Type.Array(Type.Object({}, { additionalProperties: true }))])),
    tools: Type.Optional(Type.Array(Type.Object({}, { additionalProperties: true }), { maxItems: 512 })),
    tokenizer: Type.Optional(Type.String()),
  },
  { additionalProperties: true },
);
type CountTokensBody = Static<typeof CountTokensBodySchema>;

/** `bodyLimit`: GATEWAY_COUNT_TOKENS_BODY_LIMIT_BYTES; undefined, the listener's. */
export function registerCountTokensRoute(app: FastifyInstance, bodyLimit?: number): void {
  app.post<{ Body: CountTokensBody }>(
    '/v1/count_tokens',
    { schema: { body: CountTokensBodySchema }, bodyLimit },
    async (request) => {
      const body = request.body;
      if (!MODEL_ID_PATTERN.test(body.model)) {
        throw new GatewayError('bad_model_id', {
          message: `Model id "${body.model.slice(0, 80)}" must have the form {author_id}/{model_id}.`,
          param: 'model',
        });
      }
      if (body.tokenizer !== undefined && !isTokenizerName(body.tokenizer)) {
        throw new GatewayError('invalid_tokenizer', {
          message: `Unknown tokenizer "${body.tokenizer.slice(0, 40)}"; use ${TOKENIZERS.join(' or ')}.`,
          param: 'tokenizer',
        });
      }
      const tokenizer = body.tokenizer ?? tokenizerForModel(body.model);
      const input_tokens = await countRequestTokensOffloaded(
        { messages: body.messages ?? [], system: body.system, tools: body.tools },
        tokenizer,
      );
      return { input_tokens, tokenizer };
    },
  );
}
