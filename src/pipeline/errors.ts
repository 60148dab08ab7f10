import { OffloadQueueFull } from '../offload/pool.js';
import { isDatabaseUnavailable } from '../store/unavailable.js';

/**
 * Every error code the gateway emits, with its HTTP status, type and default message.
 * docs/errors.md documents each one; test/gateway/errors.test.ts fails if the two drift apart.
 */
export const GATEWAY_ERRORS = {
  invalid_json: { status: 400, type: 'invalid_request_error', message: 'The request body is not valid JSON.' },
  invalid_request: { status: 400, type: 'invalid_request_error', message: 'The request is not valid.' },
  bad_model_id: {
    status: 400,
    type: 'invalid_request_error',
    message: 'Model ids have the form {author_id}/{model_id}.',
  },
  invalid_tokenizer: {
    status: 400,
    type: 'invalid_request_error',
    message: 'Unknown tokenizer; use cl100k_base or o200k_base.',
  },
  invalid_gateway_tool_ids: {
    status: 400,
    type: 'invalid_request_error',
    message: 'A gateway tool id is invalid or not activated for this key.',
  },
  provider_not_supported: {
    status: 400,
    type: 'invalid_request_error',
    message: 'No configured provider can serve this model.',
  },
  unauthorized: { status: 401, type: 'authentication_error', message: 'Missing or invalid API key.' },
  forbidden: { status: 403, type: 'permission_error', message: 'This API key may not make this request.' },
  model_not_found: {
    status: 400,
    type: 'invalid_request_error',
    message: 'The model does not exist or is not active.',
  },
  not_found: { status: 404, type: 'not_found_error', message: 'No such route.' },
  method_not_allowed: {
    status: 405,
    type: 'invalid_request_error',
    message: 'This method is not allowed on this route.',
  },
  request_too_large: { status: 413, type: 'invalid_request_error', message: 'The request body is too large.' },
  unsupported_media_type: {
    status: 415,
    type: 'invalid_request_error',
    message: 'The request body must be application/json.',
  },
  usage_limit_exceeded: {
    status: 429,
    type: 'rate_limit_error',
    message: "This request would exceed the key's monthly usage limit.",
  },
  provider_error: { status: 502, type: 'provider_error', message: 'The upstream provider returned an error.' },
  provider_timeout: { status: 504, type: 'provider_error', message: 'The upstream provider did not answer in time.' },
  overloaded: { status: 503, type: 'server_error', message: 'The gateway is at its concurrency limit; retry shortly.' },
  database_unavailable: {
    status: 503,
    type: 'server_error',
    message: "The gateway's database is unavailable; retry shortly.",
  },
  internal_error: { status: 500, type: 'server_error', message: 'An internal error occurred.' },
} as const satisfies Record<string, { status: number; type: GatewayErrorType; message: string }>;

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
