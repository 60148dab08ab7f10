/** The Console API's session objects (src/console/schemas/sessions.ts), as the pages read them. */

export interface SessionFigures {
  requests: number;
  input_tokens: number;
  cached_input_tokens: number;
  cache_write_tokens: number;
  output_tokens: number;
  cost_micro_usd: number;
  compression_savings_micro_usd: number;
  caching_savings_micro_usd: number;
  savings_micro_usd: number;
}

export interface SessionSummary extends SessionFigures {
  id: string;
  agent: string | null;
  agent_version: string | null;
  models: string[];
  started_at: string;
  ended_at: string;
  duration_ms: number;
  /** Absent on a shared session: who ran it stays inside the organization. */
  api_key_ids?: string[];
  api_keys?: Array<{ id: string; name: string | null }>;
  members?: Array<{ id: string; email: string | null; name: string | null }>;
}

export interface SessionRequest extends SessionFigures {
  id: string;
  request_id: string;
  created_at: string;
  model: string;
  endpoint: string;
  status_code: number;
  error_code: string | null;
  latency_ms: number;
  stream: boolean;
  compression_strategies: string[];
  api_key_id?: string;
}

/** A session with its requests: `requests` is the list here (the count is its length). */
export interface SessionDetail extends Omit<SessionSummary, 'requests'> {
  requests: SessionRequest[];
  requests_truncated: boolean;
  /** Only on a shared session. */
  shared_until?: string;
}

export interface SessionFilterValues {
  members: Array<{ id: string; email: string | null; name: string | null }>;
  api_keys: Array<{ id: string; name: string | null }>;
  agents: string[];
}

export interface ShareLink {
  id: string;
  session_id: string;
  created_at: string;
  expires_at: string;
  revoked_at: string | null;
  status: 'active' | 'expired' | 'revoked';
  token?: string;
  path?: string;
}

/** Display names of the agents' User-Agent product tokens. */
const AGENT_NAMES: Record<string, string> = {
  'claude-cli': 'Claude Code',
  codex_cli_rs: 'Codex',
  opencode: 'opencode',
};

export function agentLabel(session: { agent: string | null; agent_version: string | null }): string {
  if (!session.agent) return 'Unknown agent';
  const name = AGENT_NAMES[session.agent] ?? session.agent;
  return session.agent_version ? `${name} ${session.agent_version}` : name;
}

export const agentName = (agent: string) => AGENT_NAMES[agent] ?? agent;

export function formatDuration(ms: number): string {
  if (ms < 1_000) return `${ms} ms`;
  const seconds = Math.round(ms / 1_000);
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min ${seconds % 60} s`;
  return `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}
