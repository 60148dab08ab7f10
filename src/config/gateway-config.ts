import { readFileSync } from 'node:fs';
import { Type, type Static } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { requireBundled } from './bundled-package.js';

/** The file named by GATEWAY_CONFIG (JSON or YAML). Full reference: docs/configuration.md. */
const ProviderConfigSchema = Type.Object(
  {
    id: Type.String({ pattern: '^[a-zA-Z0-9_.-]{1,64}$' }),
    /** A provider kind of src/providers/registry.ts (openai, anthropic, gemini, local); the catalogue refuses any other. */
    kind: Type.String({ pattern: '^[a-z][a-z0-9_-]{0,31}$' }),
    base_url: Type.Optional(Type.String({ pattern: '^https?://' })),
    api_key_env: Type.Optional(Type.String({ pattern: '^[A-Za-z_][A-Za-z0-9_]*$' })),
    /**
     * A file holding the provider's key (a mounted secret), read at start-up and on every reload
     * (SIGHUP, POST /v1/admin/reload): a key rotated at the provider is picked up without a restart.
     * Takes precedence over `api_key_env`.
     */
    api_key_file: Type.Optional(Type.String({ minLength: 1 })),
    headers: Type.Optional(Type.Record(Type.String(), Type.String())),
    /**
     * An `openai` provider that also serves OpenAI's Responses API at `{base_url}/responses`:
     * `/v1/responses` requests are then passed through natively (docs/agent-endpoints.md).
     * Off by default: most OpenAI-compatible servers speak chat completions only.
     */
    responses_api: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);

const PricingSchema = Type.Object(
  {
    input_per_mtok: Type.Number({ minimum: 0 }),
    output_per_mtok: Type.Number({ minimum: 0 }),
    cached_input_per_mtok: Type.Optional(Type.Number({ minimum: 0 })),
    cache_write_per_mtok: Type.Optional(Type.Number({ minimum: 0 })),
  },
  { additionalProperties: false },
);

const ModelConfigSchema = Type.Object(
  {
    id: Type.String({ pattern: '^[a-zA-Z0-9_.-]+/[a-zA-Z0-9_.:@-]+$' }),
    providers: Type.Array(
      Type.Object({ provider: Type.String(), model: Type.String({ minLength: 1 }) }, { additionalProperties: false }),
      { minItems: 1 },
    ),
    pricing: PricingSchema,
    active: Type.Optional(Type.Boolean()),
    owned_by: Type.Optional(Type.String()),
    max_output_tokens: Type.Optional(Type.Integer({ minimum: 1 })),
    context_window: Type.Optional(Type.Integer({ minimum: 1 })),
    created: Type.Optional(Type.Integer({ minimum: 0 })),
  },
  { additionalProperties: false },
);

const TimeoutsSchema = Type.Object(
  {
    connect_ms: Type.Optional(Type.Integer({ minimum: 1 })),
    first_byte_ms: Type.Optional(Type.Integer({ minimum: 1 })),
    between_chunks_ms: Type.Optional(Type.Integer({ minimum: 1 })),
  },
  { additionalProperties: false },
);

const RetrySchema = Type.Object(
  {
    max_attempts: Type.Optional(Type.Integer({ minimum: 1, maximum: 10 })),
    base_delay_ms: Type.Optional(Type.Integer({ minimum: 0 })),
    max_delay_ms: Type.Optional(Type.Integer({ minimum: 0 })),
  },
  { additionalProperties: false },
);

export const GatewayConfigSchema = Type.Object(
  {
    providers: Type.Optional(Type.Array(ProviderConfigSchema)),
    models: Type.Optional(Type.Array(ModelConfigSchema)),
    timeouts: Type.Optional(TimeoutsSchema),
    retry: Type.Optional(RetrySchema),
  },
  { additionalProperties: false },
);

export type ProviderConfig = Static<typeof ProviderConfigSchema>;
export type ModelConfig = Static<typeof ModelConfigSchema>;
export type Pricing = Static<typeof PricingSchema>;
export type GatewayConfig = Static<typeof GatewayConfigSchema>;

export class ConfigError extends Error {}

export function loadGatewayConfig(file: string | undefined): GatewayConfig {
  if (!file) return {};
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new ConfigError(`cannot read GATEWAY_CONFIG file ${file}: ${(error as Error).message}`);
  }
  let parsed: unknown;
  try {
    parsed = /\.json$/i.test(file) ? JSON.parse(text) : parseYaml(text);
  } catch (error) {
    throw new ConfigError(
      `${file} is not valid ${/\.json$/i.test(file) ? 'JSON' : 'YAML'}: ${(error as Error).message}`,
    );
  }
  return validateGatewayConfig(parsed ?? {}, file);
}

/**
 * The YAML parser is loaded only for a YAML config file, from its one-file build when there is
 * one: the package's ~70 modules from node_modules held ~0.6 MB more of an idle process's heap
 * (bench/README.md, "Issue 29: idle memory after issue 30").
 */
function parseYaml(text: string): unknown {
  const yaml = requireBundled('yaml.cjs', 'yaml') as typeof import('yaml');
  return yaml.parse(text);
}

export function validateGatewayConfig(value: unknown, source: string): GatewayConfig {
  if (Value.Check(GatewayConfigSchema, value)) return value;
  const first = Value.Errors(GatewayConfigSchema, value).First();
  const path = first?.path ? first.path.replace(/^\//, '').replace(/\//g, '.') : '(root)';
  throw new ConfigError(`${source}: invalid configuration at ${path}: ${first?.message ?? 'invalid'}`);
}
