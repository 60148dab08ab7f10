/**
 * The tables of the team features (issue 30): members and groups, windowed limits, alerts, an
 * organization's own provider keys, debug captures and session share links. Same column
 * conventions as schema.ts, which joins them into `Database`.
 */
/** A member of an organization (migration 026); `invited` until the invite link is accepted. */
export interface OrganizationMembersTable {
  id: string;
  organization_id: string;
  email: string;
  name: string | null;
  role: 'owner' | 'admin' | 'member';
  group_id: string | null;
  status: 'invited' | 'active' | 'removed';
  /** SHA-256 of the invite link's secret while the invite is open; null once accepted. */
  invite_digest: string | null;
  invite_expires_at: number | null;
  created_at: number;
  updated_at: number;
  joined_at: number | null;
}

/** A group of members sharing settings (limits, allow-lists) (migration 026). */
export interface MemberGroupsTable {
  id: string;
  organization_id: string;
  name: string;
  /** JSON object of shared settings. */
  settings: string;
  created_at: number;
  updated_at: number;
}

/** An organization's own key for one provider (migration 029, BYOK): used for its traffic before the operator's. */
export interface OrganizationProviderKeysTable {
  id: string;
  organization_id: string;
  /** A provider id of the catalogue (built-in or the config file's). */
  provider_id: string;
  /** Sealed with the keyring; the AES-GCM context names the row id (store/provider-keys.ts). */
  key_ciphertext: string;
  /** What the console shows of the key after creation: its last 4 characters, masked. */
  key_hint: string;
  created_at: number;
  updated_at: number;
}

/** An organization's model and provider allow-lists (migration 029); null column or no row: no restriction. */
export interface OrganizationAllowListsTable {
  organization_id: string;
  /** JSON array of model ids (`author/model`). */
  allowed_models: string | null;
  /** JSON array of provider ids. */
  allowed_providers: string | null;
  updated_at: number;
}

/** One captured request of a key in debug capture (migration 030, docs/debug-capture.md). */
export interface DebugCapturesTable {
  /** Time-ordered (store/time-ordered-id.ts): pages and the per-key cap go by it. */
  id: string;
  organization_id: string;
  api_key_id: string;
  request_id: string;
  created_at: number;
  endpoint: string;
  model: string | null;
  status_code: number;
  /** JSON: the body and selected headers as received, redacted and capped. */
  received: string;
  /** JSON: one entry per upstream attempt (target, URL, headers and body as sent), redacted and capped. */
  upstream: string;
  /** JSON: the answer (a JSON body, or the streamed text as the client got it), capped. */
  answer: string;
  /** The stored size of the three parts. */
  bytes: number;
}

/** A read-only link to one session (migration 031); the secret is kept only as its digest. */
export interface SessionShareLinksTable {
  id: string;
  organization_id: string;
  session_id: string;
  secret_digest: string;
  created_at: number;
  expires_at: number;
  revoked_at: number | null;
  created_by_token_id: string | null;
}

/** A limit of a key, member or group (migration 027, docs/limits.md). */
export interface WindowLimitsTable {
  id: string;
  organization_id: string;
  subject_kind: 'key' | 'member' | 'group';
  subject_id: string;
  /** `spend`: micro-USD; `requests`, `tokens`: a count per minute. */
  metric: 'spend' | 'requests' | 'tokens';
  period: 'daily' | 'monthly' | 'lifetime' | 'minute';
  amount: number;
  created_at: number;
  updated_at: number;
}

/** What one spend limit's window has spent and holds reserved (migration 027; written by the budget ledger only). */
export interface LimitWindowSpendTable {
  limit_id: string;
  /** ms; 0 for a lifetime window. */
  window_start: number;
  spent_micro_usd: number;
  reserved_micro_usd: number;
}

/** An organization's limit windows' offset from UTC (migration 027); no row: UTC. */
export interface LimitSettingsTable {
  organization_id: string;
  window_offset_minutes: number;
  updated_at: number;
}

/** An organization's alert rule (migration 028, docs/alerts.md); target, thresholds and destinations are JSON. */
export interface AlertRulesTable {
  id: string;
  organization_id: string;
  name: string;
  target: string;
  thresholds: string;
  destinations: string;
  /** The signing secret of the rule's signed destinations, sealed with the master key; null without one. */
  secret_ciphertext: string | null;
  enabled: number;
  created_at: number;
  updated_at: number;
}

/** One alert fired: unique per (rule_id, subject, threshold, window_start), so it fires once. */
export interface AlertFiringsTable {
  id: string;
  organization_id: string;
  rule_id: string;
  /** What crossed the threshold: `organization`, `key:<id>` or `limit:<id>`. */
  subject: string;
  threshold: number;
  window_kind: string;
  window_start: number;
  /** Null for a lifetime window: such firings leave with their rule. */
  window_end: number | null;
  limit_micro_usd: number;
  spent_micro_usd: number;
  fired_at: number;
}
