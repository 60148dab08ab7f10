/** The console API, same origin, with the console token from sessionStorage as a Bearer token. */

const TOKEN_KEY = 'gateway.console.token';

export interface Session {
  token: string;
  organization: CurrentOrganization;
}

export interface CurrentOrganization {
  id: string;
  slug: string;
  name: string;
  token: {
    id: string;
    name: string;
    permission: 'admin' | 'write' | 'read';
    expires_at: string | null;
    /** The member the token signs in as; null (or absent, older servers): an organization-wide token. */
    member?: { id: string; email: string; role: 'owner' | 'admin' | 'member' } | null;
  };
}

/** An API answer with an error status, carrying the console's `{error, message, param}`. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly param: string | null = null,
  ) {
    super(message);
    this.name = 'ApiError';
  }

  /** The route itself does not exist on this server (as opposed to a missing object). */
  get routeMissing(): boolean {
    return this.status === 404 && /^No route /.test(this.message);
  }
}

export function storedToken(): string | null {
  return sessionStorage.getItem(TOKEN_KEY);
}

export function storeToken(token: string | null): void {
  if (token === null) sessionStorage.removeItem(TOKEN_KEY);
  else sessionStorage.setItem(TOKEN_KEY, token);
}

let onUnauthorized: (message: string) => void = () => undefined;
export function setUnauthorizedHandler(handler: (message: string) => void): void {
  onUnauthorized = handler;
}

export type Query = Record<string, string | number | undefined | Array<string>>;

export function withQuery(path: string, query: Query = {}): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value === undefined || value === '') continue;
    if (Array.isArray(value)) for (const item of value) params.append(name, item);
    else params.append(name, String(value));
  }
  const text = params.toString();
  return text ? `${path}?${text}` : path;
}

async function send(method: string, path: string, body?: unknown, token = storedToken()): Promise<Response> {
  const headers: Record<string, string> = {};
  if (token) headers.authorization = `Bearer ${token}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  let response: Response;
  try {
    response = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  } catch (error) {
    throw new ApiError(0, `The console API could not be reached: ${(error as Error).message}`);
  }
  if (response.ok) return response;
  let message = `${response.status} ${response.statusText}`;
  let param: string | null = null;
  try {
    const problem = (await response.json()) as { message?: string; param?: string };
    if (problem.message) message = problem.message;
    param = problem.param ?? null;
  } catch {
    // not JSON: keep the status line
  }
  if (response.status === 401 && token) onUnauthorized(message);
  throw new ApiError(response.status, message, param);
}

export async function api<T>(method: string, path: string, body?: unknown): Promise<T> {
  const response = await send(method, path, body);
  return (await response.json()) as T;
}

/** Signs in: checks the token by asking whose it is. */
export async function whoAmI(token: string): Promise<CurrentOrganization> {
  const response = await send('GET', '/v1/organizations/me', undefined, token);
  return (await response.json()) as CurrentOrganization;
}

/** Fetches with the token and hands the body to the browser as a file download. */
export async function download(path: string, fallbackName: string): Promise<number> {
  const response = await send('GET', path);
  const blob = await response.blob();
  const disposition = response.headers.get('content-disposition') ?? '';
  const name = /filename="([^"]+)"/.exec(disposition)?.[1] ?? fallbackName;
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
  return blob.size;
}

export interface ListBody<T> {
  object: 'list';
  data: T[];
  has_more?: boolean;
  last_key?: string | null;
}

export interface ApiKey {
  id: string;
  name: string;
  type: 'api' | 'coding_agent';
  coding_assistant: string | null;
  models: string[];
  max_usage: number | null;
  active: boolean;
  debug_mode: boolean;
  compression: boolean;
  cache_breakpoints: boolean;
  output_brevity: boolean;
  tool_surface: boolean;
  created_at: string;
  expires_at: string | null;
  last_used_at: string | null;
  key?: string;
}

export interface KeySpend {
  api_key_id: string;
  name: string;
  active: boolean;
  max_usage: number | null;
  spent_micro_usd: number;
  reserved_micro_usd: number;
  spent_usd: number;
  used_fraction: number | null;
}

export interface UsageCounts {
  requests: number;
  errors: number;
  input_tokens: number;
  output_tokens: number;
  cost_micro_usd: number;
  cost_usd: number;
}

export interface UsageSummary {
  from: string;
  to: string;
  granularity: 'hour' | 'day';
  group_by: string;
  buckets: string[];
  totals: UsageCounts;
  groups: Array<
    UsageCounts & {
      key: string;
      label: string;
      series: { requests: number[]; tokens: number[]; cost_micro_usd: number[] };
    }
  >;
}

/** What this session's token may do: read tokens change nothing; only admins manage console tokens. */
export function permissions(session: Session): { canWrite: boolean; isAdmin: boolean } {
  const permission = session.organization.token.permission;
  return { canWrite: permission !== 'read', isAdmin: permission === 'admin' };
}

export const orgBase = (session: Session) => `/v1/organizations/${encodeURIComponent(session.organization.id)}`;

export interface GatewayTool {
  id: string;
  description: string;
  parameters: unknown;
  timeout_ms: number;
  active: boolean;
  active_key_ids: string[] | null;
  hydrate: boolean;
  hydrate_key_ids: string[];
  updated_at: string | null;
}

export interface ApiToken {
  id: string;
  name: string;
  permission: 'admin' | 'write' | 'read';
  created_at: string;
  expires_at: string | null;
  last_used_at: string | null;
  token?: string;
}

export interface SavingsCounts {
  requests: number;
  input_tokens: number;
  output_tokens: number;
  cost_micro_usd: number;
  cache_read_tokens: number;
  cache_write_tokens: number;
  caching_savings_micro_usd: number;
  cache_read_savings_micro_usd: number;
  cache_write_extra_micro_usd: number;
  compressed_requests: number;
  compression_saved_tokens: number;
  compression_savings_micro_usd: number;
  compression_estimated_micro_usd: number;
  compression_estimated_requests: number;
  estimated: boolean;
  savings_micro_usd: number;
  cost_without_savings_micro_usd: number;
  saved_fraction: number | null;
}

export interface UsageSavings {
  from: string;
  to: string;
  granularity: 'hour' | 'day';
  group_by: 'api_key' | 'model' | 'day';
  buckets: string[];
  totals: SavingsCounts;
  series: {
    cost_micro_usd: number[];
    compression_savings_micro_usd: number[];
    caching_savings_micro_usd: number[];
    compression_estimated_micro_usd: number[];
    input_tokens: number[];
    cache_read_tokens: number[];
    compression_saved_tokens: number[];
  };
  groups: Array<SavingsCounts & { key: string; label: string }>;
  unpriced_models: string[];
}
