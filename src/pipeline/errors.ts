import { OffloadQueueFull } from '../offload/pool.js';
import { isDatabaseUnavailable } from '../store/unavailable.js';

interface ErrorEntry {
  status: number;
  type: GatewayErrorType;
  message: string;
}

const entry = (status: number, type: GatewayErrorType, message: string): ErrorEntry => ({ status, type, message });

/**
 * Every error code the gateway emits, with its HTTP status, type and default message.
 * docs/errors.md documents each one; test/gateway/errors.test.ts fails if the two drift apart.
 */
export const GATEWAY_ERRORS = {
  invalid_json: entry(400, 'invalid_request_error', 'The request body is not valid JSON.'),
  invalid_request: entry(400, 'invalid_request_error', 'The request is not valid.'),
  bad_model_id: entry(400, 'invalid_request_error', 'Model ids have the form {author_id}/{model_id}.'),
  invalid_tokenizer: entry(400, 'invalid_request_error', 'Unknown tokenizer; use cl100k_base or o200k_base.'),
  invalid_gateway_tool_ids: entry(
    400,
    'invalid_request_error',
    'A gateway tool id is invalid or not activated for this key.',
  ),
  provider_not_supported: entry(400, 'invalid_request_error', 'No configured provider can serve this model.'),
  unauthorized: entry(401, 'authentication_error', 'Missing or invalid API key.'),
  forbidden: entry(403, 'permission_error', 'This API key may not make this request.'),
  model_not_found: entry(400, 'invalid_request_error', 'The model does not exist or is not active.'),
  not_found: entry(404, 'not_found_error', 'No such route.'),
  method_not_allowed: entry(405, 'invalid_request_error', 'This method is not allowed on this route.'),
  request_too_large: entry(413, 'invalid_request_error', 'The request body is too large.'),
  unsupported_media_type: entry(415, 'invalid_request_error', 'The request body must be application/json.'),
  usage_limit_exceeded: entry(429, 'rate_limit_error', "This request would exceed the key's monthly usage limit."),
  rate_limit_exceeded: entry(
    429,
    'rate_limit_error',
    'This request would exceed a per-minute rate limit of its key or member.',
  ),
  stored_context_unbounded: entry(
    400,
    'invalid_request_error',
    'This key has a monthly usage limit, and the request refers to stored context whose cost the gateway cannot estimate.',
  ),
  provider_error: entry(502, 'provider_error', 'The upstream provider returned an error.'),
  provider_timeout: entry(504, 'provider_error', 'The upstream provider did not answer in time.'),
  overloaded: entry(503, 'server_error', 'The gateway is at its concurrency limit; retry shortly.'),
  database_unavailable: entry(503, 'server_error', "The gateway's database is unavailable; retry shortly."),
  internal_error: entry(500, 'server_error', 'An internal error occurred.'),
} satisfies Record<string, ErrorEntry>;

export type GatewayErrorType =
  | 'invalid_request_error'
  | 'authentication_error'
  | 'permission_error'
  | 'not_found_error'
  | 'rate_limit_error'
  | 'server_error'
  | 'provider_error';

export type GatewayErrorCode = keyof typeof GATEWAY_ERRORS;

export interface GatewayErrorEnvelope {
  error: {
    message: string;
    type: GatewayErrorType;
    code: GatewayErrorCode;
    param: string | null;
    [extra: string]: unknown;
  };
}

export class GatewayError extends Error {
  readonly status: number;
  readonly type: GatewayErrorType;

  constructor(
    readonly code: GatewayErrorCode,
    options: {
      message?: string;
      param?: string | null;
      status?: number;
      extra?: Record<string, unknown>;
      headers?: Record<string, string>;
    } = {},
  ) {
    const entry = GATEWAY_ERRORS[code];
    super(options.message ?? entry.message);
    this.name = 'GatewayError';
    this.status = options.status ?? entry.status;
    this.type = entry.type;
    this.param = options.param ?? null;
    this.extra = options.extra;
    this.headers = options.headers;
  }

  readonly param: string | null;
  readonly extra: Record<string, unknown> | undefined;
  readonly headers: Record<string, string> | undefined;

  toEnvelope(): GatewayErrorEnvelope {
    return { error: { message: this.message, type: this.type, code: this.code, param: this.param, ...this.extra } };
  }
}

/**
 * A failure that a retry may cure as a 503 with `retry-after`: the store away, restarting or locked,
 * or the worker pool for big inputs full (src/offload/); else undefined.
 */
export function databaseUnavailableError(error: unknown): GatewayError | undefined {
  if (error instanceof OffloadQueueFull)
    return new GatewayError('overloaded', { message: error.message, headers: { 'retry-after': '1' } });
  if (!isDatabaseUnavailable(error)) return undefined;
  return new GatewayError('database_unavailable', { headers: { 'retry-after': '1' } });
}

/**
 * The gateway envelope with every entry of GATEWAY_ERRORS, for the OpenAPI document:
 * `/v1/messages` wraps the same members in Anthropic's `{type: "error", error}` (docs/errors.md).
 */
export const GATEWAY_ERROR_DOCS = {
  name: 'GatewayError',
  schema: {
    type: 'object',
    description:
      'The error envelope of the gateway (docs/errors.md): OpenAI\'s. /v1/messages and /v1/messages/count_tokens wrap the same members in Anthropic\'s {type: "error", error: {…}}.',
    required: ['error'],
    properties: {
      error: {
        type: 'object',
        required: ['message', 'type', 'code', 'param'],
        properties: {
          message: { type: 'string' },
          type: { type: 'string', enum: [...new Set(Object.values(GATEWAY_ERRORS).map((e) => e.type))] },
          code: {
            oneOf: Object.entries(GATEWAY_ERRORS).map(([code, entry]) => ({
              enum: [code],
              description: `HTTP ${entry.status}, ${entry.type}: ${entry.message}`,
              'x-status': entry.status,
            })),
          },
          param: { type: ['string', 'null'], description: 'The request field at fault, when there is one.' },
        },
      },
    },
  },
};
