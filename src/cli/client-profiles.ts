/**
 * What each client needs to talk to this gateway: environment variables and configuration
 * files, built from the gateway's origin, a key, the CA to trust and the compression bundle.
 * Pure (no I/O), so `gateway connect` prints it and the agent tests run the real CLIs with
 * exactly what it prints. The CLI variables were found by running Claude Code 2.1.197, Codex
 * 0.169.0 and opencode 1.18.33 against a recording server (docs/agents.md).
 */
export const CLIENTS = ['claude-code', 'codex', 'opencode', 'openai-sdk', 'anthropic-sdk', 'aider'] as const;
export type ClientName = (typeof CLIENTS)[number];

/** The coding assistant a client's key is created for (the console's `coding_assistant`). */
export const ASSISTANT_OF: Partial<Record<ClientName, 'claude_code' | 'codex' | 'opencode'>> = {
  'claude-code': 'claude_code',
  codex: 'codex',
  opencode: 'opencode',
};

/** The compression bundle tuned for each agent (docs/compression.md, "Bundles"). */
export const BUNDLE_OF: Partial<Record<ClientName, string>> = {
  'claude-code': 'claude',
  codex: 'codex',
  opencode: 'opencode',
};

export const COMPRESSION_HEADER = 'X-Gateway-Compression-Model';

export interface ConnectionInput {
  /** https://host:port, no path. */
  origin: string;
  apiKey: string;
  /** The CA to add to a client's trust (undefined: the certificate is publicly trusted). */
  caFile: string | undefined;
  /** System roots plus the CA, for clients whose variable replaces the trust store. */
  caBundleFile: string | undefined;
  /** Compression bundle to request by header; undefined: none. */
  bundle: string | undefined;
  /** More headers every request sends (`gateway launch`: the session id and its tag). */
  headers?: Record<string, string> | undefined;
  /** Models opencode's provider lists, with the catalogue's limits and prices (opencode-models.ts). */
  opencodeModels?: Record<string, OpencodeModel> | undefined;
}

/** A model entry of opencode's config: its compaction reads `limit`, its cost readout `cost` (USD per million tokens). */
export interface OpencodeModel {
  name: string;
  limit: { context: number; output: number };
  cost: { input: number; output: number; cache_read: number; cache_write: number };
}

export interface ProfileFile {
  /** Where the client reads it; `~` is the user's home. */
  path: string;
  content: string;
}

export interface ClientProfile {
  client: ClientName;
  /** Variables the client must see, in the order they are printed. */
  env: Record<string, string>;
  /** Variables that only keep the client from calling its vendor (telemetry, updates); optional. */
  quietEnv: Record<string, string>;
  files: ProfileFile[];
  notes: string[];
}

/** The headers every request of the client carries: the compression bundle's, then the caller's. */
export function requestHeaders(input: Pick<ConnectionInput, 'bundle' | 'headers'>): Record<string, string> {
  return { ...(input.bundle ? { [COMPRESSION_HEADER]: input.bundle } : {}), ...input.headers };
}

export function clientProfile(client: ClientName, input: ConnectionInput): ClientProfile {
  const headers = requestHeaders(input);
  const headerLines = Object.entries(headers).map(([name, value]) => `${name}: ${value}`);
  const nodeCa: Record<string, string> = input.caFile ? { NODE_EXTRA_CA_CERTS: input.caFile } : {};
  const pythonCa: Record<string, string> = input.caBundleFile
    ? { SSL_CERT_FILE: input.caBundleFile, REQUESTS_CA_BUNDLE: input.caBundleFile }
    : {};
  switch (client) {
    case 'claude-code':
      return {
        client,
        env: {
          ANTHROPIC_BASE_URL: input.origin,
          // A Bearer token: interactive Claude Code does not stop to ask whether to use it.
          ANTHROPIC_AUTH_TOKEN: input.apiKey,
          ...nodeCa,
          // One `Name: value` per line, as Claude Code reads it.
          ...(headerLines.length ? { ANTHROPIC_CUSTOM_HEADERS: headerLines.join('\n') } : {}),
        },
        quietEnv: { CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1' },
        files: [],
        notes: ['Default model and flags work as they are: `claude`, or `claude -p "…"` headless.'],
      };
    case 'codex':
      return {
        client,
        env: { GATEWAY_API_KEY: input.apiKey, ...(input.caFile ? { CODEX_CA_CERTIFICATE: input.caFile } : {}) },
        quietEnv: {},
        files: [{ path: '~/.codex/config.toml', content: codexConfig(`${input.origin}/v1`, headers) }],
        notes: [
          'Codex ignores OPENAI_BASE_URL for its built-in provider; the config file selects a custom one.',
          '`[features] plugins = false` and `[analytics] enabled = false` keep Codex from calling github.com and chatgpt.com; drop them if you use plugins.',
        ],
      };
    case 'opencode':
      return {
        client,
        env: { GATEWAY_API_KEY: input.apiKey, ...nodeCa },
        quietEnv: { OPENCODE_DISABLE_MODELS_FETCH: '1', OPENCODE_DISABLE_AUTOUPDATE: '1' },
        files: [
          {
            path: '~/.config/opencode/opencode.json',
            content: opencodeConfig(`${input.origin}/v1`, headers, input.opencodeModels),
          },
        ],
        notes: [
          'opencode also reads ANTHROPIC_BASE_URL, but it needs /v1 where Claude Code must not have it: the config file avoids the clash.',
        ],
      };
    case 'openai-sdk':
      return {
        client,
        env: { OPENAI_BASE_URL: `${input.origin}/v1`, OPENAI_API_KEY: input.apiKey, ...nodeCa, ...pythonCa },
        quietEnv: {},
        files: [],
        notes: [
          'Models are catalogue ids, e.g. "openai/gpt-6.1-sol" or "anthropic/claude-sonnet-5-5" (GET /v1/models).',
          ...(input.bundle ? [`Send the header ${COMPRESSION_HEADER}: ${input.bundle} (defaultHeaders).`] : []),
        ],
      };
    case 'anthropic-sdk':
      return {
        client,
        env: { ANTHROPIC_BASE_URL: input.origin, ANTHROPIC_API_KEY: input.apiKey, ...nodeCa, ...pythonCa },
        quietEnv: {},
        files: [],
        notes: [
          'Models as Anthropic names them ("claude-sonnet-5-5", "sonnet", dated ids) on /v1/messages.',
          ...(input.bundle ? [`Send the header ${COMPRESSION_HEADER}: ${input.bundle} (defaultHeaders).`] : []),
        ],
      };
    case 'aider':
      return {
        client,
        env: { OPENAI_API_BASE: `${input.origin}/v1`, OPENAI_API_KEY: input.apiKey, ...pythonCa },
        quietEnv: {},
        files: [],
        notes: ['Pick a model with the openai/ prefix, e.g. `aider --model openai/anthropic/claude-sonnet-5-5`.'],
      };
  }
}

/** Codex's settings as TOML tables of `key = value` lines ('' is the top level). */
function codexTables(baseUrl: string, headers: Record<string, string>): Array<[string, Array<[string, string]>]> {
  const provider: Array<[string, string]> = [
    ['name', '"LLM gateway"'],
    ['base_url', JSON.stringify(baseUrl)],
    ['env_key', '"GATEWAY_API_KEY"'],
    // The only value Codex 0.169 accepts.
    ['wire_api', '"responses"'],
  ];
  if (Object.keys(headers).length)
    provider.push([
      'http_headers',
      `{ ${Object.entries(headers)
        .map(([k, v]) => `${JSON.stringify(k)} = ${JSON.stringify(v)}`)
        .join(', ')} }`,
    ]);
  return [
    ['', [['model_provider', '"gateway"']]],
    ['model_providers.gateway', provider],
    ['features', [['plugins', 'false']]],
    ['analytics', [['enabled', 'false']]],
  ];
}

/** Codex's custom provider as its config file. */
export function codexConfig(baseUrl: string, headers: Record<string, string> = {}): string {
  return codexTables(baseUrl, headers)
    .map(([table, lines]) => (table ? `[${table}]\n` : '') + lines.map(([k, v]) => `${k} = ${v}\n`).join(''))
    .join('\n');
}

/** The same settings as Codex's `-c key=value` flags, which override its config file for one run. */
export function codexConfigFlags(baseUrl: string, headers: Record<string, string> = {}): string[] {
  return codexTables(baseUrl, headers).flatMap(([table, lines]) =>
    lines.flatMap(([k, v]) => ['-c', `${table ? `${table}.` : ''}${k}=${v}`]),
  );
}

/** opencode's Anthropic provider pointed at the gateway; the key stays in the environment. */
export function opencodeConfig(
  baseUrl: string,
  headers: Record<string, string> = {},
  models?: Record<string, OpencodeModel>,
): string {
  const options = {
    baseURL: baseUrl,
    apiKey: '{env:GATEWAY_API_KEY}',
    ...(Object.keys(headers).length ? { headers } : {}),
  };
  const anthropic = { options, ...(models ? { models } : {}) };
  return JSON.stringify({ $schema: 'https://opencode.ai/config.json', provider: { anthropic } }, null, 2) + '\n';
}

/** A value as a POSIX shell word. */
export function shellQuote(value: string): string {
  return /^[A-Za-z0-9_./:@%+=,-]+$/.test(value) ? value : `'${value.replace(/'/g, `'\\''`)}'`;
}
