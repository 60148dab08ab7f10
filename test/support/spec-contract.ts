import assert from 'node:assert/strict';
import { Type, type TSchema } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';

/**
 * The wire contract as the spec's tables (/work/shared/spec/gateway-spec.md, sections 2.4, 2.5,
 * 2.7 and 7) and the public OpenAPI document of the system it describes state it, written as
 * schemas the gateway's responses are checked against. Members the tables do not name are
 * allowed (the gateway adds OpenAI's own names, debug, …); the named ones must have the stated
 * types. Where the spec says "not shown", the OpenAPI document decides (integer milliseconds,
 * `technique` values, `cache_creation_tokens`, status codes).
 */

const Count = Type.Integer({ minimum: 0 });

/** Spec 2.4 `usage`; `cache_creation_tokens` is the OpenAPI document's InputTokenDetails member. */
export const UsageSchema = Type.Object({
  prompt_tokens: Count,
  completion_tokens: Count,
  total_tokens: Count,
  input_tokens_details: Type.Object({ cached_tokens: Count, cache_creation_tokens: Count }),
  output_tokens_details: Type.Object({ reasoning_tokens: Count }),
});

/** Spec 2.4 `compression` (CompressionInfo): `time_ms` an integer. */
export const CompressionInfoSchema = Type.Object({
  saved_tokens: Count,
  cost_savings: Count,
  reduction: Type.Number({ minimum: 0, maximum: 100 }),
  time_ms: Count,
});

const FinishReason = Type.Union(['stop', 'length', 'content_filter', 'tool_calls'].map((r) => Type.Literal(r)));

/** Spec 2.4, a whole response. */
export const ChatCompletionSchema = Type.Object({
  id: Type.String(),
  object: Type.Literal('chat.completion'),
  created: Count,
  model: Type.String(),
  choices: Type.Array(
    Type.Object({
      index: Count,
      message: Type.Object({ role: Type.String(), content: Type.Union([Type.String(), Type.Null()]) }),
      finish_reason: FinishReason,
    }),
  ),
  usage: UsageSchema,
  compression: Type.Optional(CompressionInfoSchema),
  gateway_pending_id: Type.Optional(Type.String()),
  gateway_tools_executed: Type.Optional(Type.Array(Type.Unknown())),
});

/** A streamed chunk (the OpenAPI document's ChatCompletionChunk, with the 2.4 members that may ride on it). */
export const ChatCompletionChunkSchema = Type.Object({
  id: Type.String(),
  object: Type.Literal('chat.completion.chunk'),
  created: Count,
  model: Type.String(),
  choices: Type.Array(
    Type.Object({ index: Count, delta: Type.Object({}), finish_reason: Type.Union([FinishReason, Type.Null()]) }),
  ),
  usage: Type.Optional(UsageSchema),
  compression: Type.Optional(CompressionInfoSchema),
});

/** Spec 2.5 `compression` of /v1/compress (CompressMetadata). */
export const CompressMetadataSchema = Type.Object({
  technique: Type.Union([Type.Literal('auto'), Type.Literal('tool')]),
  applied_strategies: Type.Array(Type.String()),
  compression_rate: Type.Number({ minimum: 0, maximum: 1 }),
  uncompressed_input_tokens: Count,
  compressed_input_tokens: Count,
  compression_time_ms: Count,
});

/** Spec 2.7. */
export const ModelSchema = Type.Object({
  id: Type.String({ pattern: '^[^/]+/.+$' }),
  object: Type.Literal('model'),
  created: Count,
  owned_by: Type.String(),
});
export const ModelListSchema = Type.Object({ object: Type.Literal('list'), data: Type.Array(ModelSchema) });

/** Spec 7, the gateway envelope: every member present. */
export const ErrorEnvelopeSchema = Type.Object({
  error: Type.Object({
    message: Type.String(),
    type: Type.Union(
      [
        'invalid_request_error',
        'authentication_error',
        'permission_error',
        'not_found_error',
        'rate_limit_error',
        'server_error',
        'provider_error',
      ].map((t) => Type.Literal(t)),
    ),
    code: Type.Union([Type.String(), Type.Null()]),
    param: Type.Union([Type.String(), Type.Null()]),
  }),
});

/**
 * HTTP status of each error code: spec 7's table, then the OpenAPI document's error list for the
 * codes the spec leaves open ("status codes for the remaining codes: not shown").
 */
export const STATUS_OF_CODE: Record<string, number> = {
  invalid_json: 400,
  invalid_request: 400,
  invalid_gateway_tool_ids: 400,
  bad_model_id: 400,
  unauthorized: 401,
  forbidden: 403,
  model_not_found: 400,
  provider_not_supported: 400,
  usage_limit_exceeded: 429,
  provider_error: 502,
  internal_error: 500,
};

/** Fails with every schema violation listed, each with its JSON pointer. */
export function assertMatches(schema: TSchema, value: unknown, what: string): void {
  if (Value.Check(schema, value)) return;
  const errors = [...Value.Errors(schema, value)].slice(0, 10).map((e) => `${e.path || '/'}: ${e.message}`);
  assert.fail(`${what} does not match the spec:\n  ${errors.join('\n  ')}\n${JSON.stringify(value).slice(0, 600)}`);
}

/** An error reply: the envelope, and the status the spec gives its code. */
export function assertSpecError(result: { status: number; json: unknown }, code: string): void {
  assertMatches(ErrorEnvelopeSchema, result.json, `the ${code} envelope`);
  const envelope = result.json as { error: { code: string } };
  assert.equal(envelope.error.code, code);
  assert.equal(result.status, STATUS_OF_CODE[code], `status of ${code}`);
}
