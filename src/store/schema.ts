import type {
  OrganizationMembersTable,
  MemberGroupsTable,
  OrganizationProviderKeysTable,
  OrganizationAllowListsTable,
  DebugCapturesTable,
  SessionShareLinksTable,
  WindowLimitsTable,
  LimitWindowSpendTable,
  LimitSettingsTable,
  AlertRulesTable,
  AlertFiringsTable,
} from './team-schema.js';

/**
 * Column conventions, identical on SQLite and PostgreSQL so one query layer serves both:
 * times are integer milliseconds since the Unix epoch (UTC), money is integer micro-USD,
 * booleans are 0/1 integers, lists and objects are JSON text.
 */
export interface OrganizationsTable {
  id: string;
  slug: string;
  name: string;
  created_at: number;
}

export interface ConsoleTokensTable {
  id: string;
  organization_id: string;
  name: string;
  token_digest: string;
  permission: 'admin' | 'write' | 'read';
  created_at: number;
  expires_at: number | null;
  last_used_at: number | null;
  /** The member this token signs in as (migration 026); null: an organization-wide token. */
  member_id?: string | null;
}

export interface ApiKeysTable {
  id: string;
  organization_id: string;
  name: string;
  type: 'api' | 'coding_agent';
  coding_assistant: string | null;
  models: string;
  max_usage_usd: number | null;
  active: number;
  debug_mode: number;
  compression: number;
  /** 1: the gateway manages prompt caching (Anthropic breakpoints, OpenAI prompt_cache_key); migration 007. */
  cache_breakpoints: number;
  /** 1: answers are asked to skip filler (src/pipeline/output-brevity.ts); migration 012. */
  output_brevity: number;
  /** 1: a new conversation may drop the key's unused tool groups (src/compress/tool-surface.ts); migration 014. */
  tool_surface: number;
  email: string | null;
  key_digest: string;
  key_ciphertext: string | null;
  created_at: number;
  updated_at: number;
  expires_at: number | null;
  last_used_at: number | null;
  deleted_at: number | null;
  /** The member who owns the key (migration 026); null: the organization's own key. */
  member_id?: string | null;
  /** Requests are captured until this time, ms (migration 030, docs/debug-capture.md); null: off. */
  debug_capture_until?: number | null;
}

export interface UsageRecordsTable {
  id: string;
  request_id: string;
  created_at: number;
  organization_id: string;
  api_key_id: string;
  model: string;
  provider: string;
  upstream_model: string;
  endpoint: string;
  input_tokens: number;
  cached_input_tokens: number;
  cache_creation_input_tokens: number;
  output_tokens: number;
  reasoning_tokens: number;
  uncompressed_input_tokens: number | null;
  cost_micro_usd: number;
  /**
   * Money compression saved on this request at the provider's prices, caching counted (migration
   * 008); null: unknown or no compression. Optional here so the places that build rows compile
   * before the request path fills it; a row written without it stores null.
   */
  compression_savings_micro_usd?: number | null;
  /**
   * 1 when the model is not in the catalogue and was priced at its provider's highest prices
   * (migration 010, default 0); optional so rows built elsewhere (refusals, seeds) store 0.
   */
  model_unlisted?: number;
  /** The agent session the client named (migration 025); optional: rows built elsewhere store null. */
  session_id?: string | null;
  /** `name/version` of the coding agent that sent it, from its User-Agent (migration 025). */
  agent?: string | null;
  /** The member who owned the key when the request was served (migration 026). */
  member_id?: string | null;
  /** Comma-separated names of the compression strategies applied (migration 031); null: none. */
  compression_strategies?: string | null;
  tags: string;
  status_code: number;
  error_code: string | null;
  latency_ms: number;
  stream: number;
}

export interface KeySpendTable {
  api_key_id: string;
  month: string;
  spent_micro_usd: number;
  reserved_micro_usd: number;
}

export interface BudgetReservationsTable {
  id: string;
  api_key_id: string;
  month: string;
  amount_micro_usd: number;
  expires_at: number;
  /** The limit windows the reservation holds room in, JSON `[[limitId, windowStart], …]` (migration 027); null: none. */
  limit_windows?: string | null;
}

export interface ProjectsTable {
  id: string;
  organization_id: string;
  slug: string;
  name: string;
  created_at: number;
  updated_at: number;
}

/** A project's claim on a domain; served by the collector only once verified (migration 006). */
export interface ProjectDomainsTable {
  domain: string;
  organization_id: string;
  project_id: string;
  /** What the organization publishes (DNS TXT or well-known file) to prove control. */
  token: string;
  created_at: number;
  verified_at: number | null;
  /** `dns`, `http`, `development` (a local name in development mode) or `preexisting` (before 006). */
  verification_method: string | null;
}

export interface ProxySettingsTable {
  project_id: string;
  revision: number;
  description: string;
  is_active: number;
  backends: string;
  routes: string;
  created_at: number;
  updated_at: number;
}

export interface ProjectComponentsTable {
  id: string;
  project_id: string;
  organization_id: string;
  component_id: string;
  component_version: string;
  active: number;
  settings: string | null;
  created_at: number;
  updated_at: number;
}

export interface CollectedEventsTable {
  project_id: string;
  event_id: string;
  organization_id: string;
  type: string;
  received_at: number;
  payload: string;
}

export interface EventDeliveriesTable {
  id: string;
  project_id: string;
  project_component_id: string;
  event_id: string;
  created_at: number;
  next_attempt_at: number;
  attempts: number;
  lease_token: string | null;
  last_error: string | null;
  failed_at: number | null;
}

export interface WarehouseEventsTable {
  project_component_id: string;
  event_id: string;
  project_id: string;
  type: string;
  received_at: number;
  stored_at: number;
  payload: string;
}

/** Activation and hydration of one built-in gateway tool in one organization (docs/gateway-tools.md). */
export interface GatewayToolSettingsTable {
  organization_id: string;
  tool_id: string;
  active: number;
  /** JSON array of key ids allowed to use the tool; null: every key of the organization. */
  active_key_ids: string | null;
  /** 1: injected automatically for every key that may use it. */
  hydrate: number;
  /** JSON array of key ids for which the tool is injected automatically. */
  hydrate_key_ids: string;
  updated_at: number;
}

/** Gateway tool calls run while the client's own calls were returned to it, keyed by `gateway_pending_id`. */
export interface GatewayPendingOperationsTable {
  id: string;
  organization_id: string;
  api_key_id: string;
  created_at: number;
  expires_at: number;
  /** JSON: every tool call of the model's turn, in the model's order (gateway and client calls). */
  tool_calls: string;
  /** JSON: [{tool_call_id, name, content}] for the gateway calls. */
  gateway_results: string;
}

/** One conversation the compression engine keeps state for (migration 007). */
export interface CompressionConversationsTable {
  api_key_id: string;
  /** SHA-256 naming the history: session headers, head and first assistant turn (src/compress/conversation-id.ts). */
  conversation_id: string;
  mask_before: number;
  rewrite_at: number | null;
  requests: number;
  last_request_at: number;
  last_cache_read: number | null;
  last_cache_write: number | null;
  /** Estimated savings so far, in uncached-input-token units (rounded). */
  saved_units: number;
  created_at: number;
  expires_at: number;
  /** JSON array: tool groups the conversation drops, decided once (migration 013); null: not decided. */
  dropped_tool_groups: string | null;
  /** JSON array: tool groups its first request offered; null: not recorded. */
  offered_tool_groups: string | null;
  /** JSON array: tool groups its requests called. */
  called_tool_groups: string | null;
  /** Digest of the outputs before mask_before (migration 017); null: nothing masked, or never verified. */
  prefix_digest: string | null;
  /** Times the state started over for a history that did not extend the stored one (migration 017). */
  history_generation: number;
}

/** Tokens a response the gateway returned left in the provider's stored context (migration 016). */
export interface StoredResponseContextsTable {
  organization_id: string;
  /** The upstream's id of the response (OpenAI Responses `resp_…`), as the client will send it back. */
  response_id: string;
  /** The key whose request produced it. */
  api_key_id: string;
  /** What a request continuing it is billed again as input: the response's input plus its output tokens. */
  context_tokens: number;
  created_at: number;
  expires_at: number;
}

/** The count of reloads asked for from the console, one row (migration 018, store/reload-generation.ts). */
export interface ReloadGenerationTable {
  id: number;
  generation: number;
  requested_at: number;
  requested_by: string | null;
}

export interface Database {
  organizations: OrganizationsTable;
  console_tokens: ConsoleTokensTable;
  api_keys: ApiKeysTable;
  usage_records: UsageRecordsTable;
  key_spend: KeySpendTable;
  budget_reservations: BudgetReservationsTable;
  gateway_tool_settings: GatewayToolSettingsTable;
  gateway_pending_operations: GatewayPendingOperationsTable;
  projects: ProjectsTable;
  project_domains: ProjectDomainsTable;
  proxy_settings: ProxySettingsTable;
  project_components: ProjectComponentsTable;
  collected_events: CollectedEventsTable;
  event_deliveries: EventDeliveriesTable;
  warehouse_events: WarehouseEventsTable;
  compression_conversations: CompressionConversationsTable;
  stored_response_contexts: StoredResponseContextsTable;
  reload_generation: ReloadGenerationTable;
  organization_members: OrganizationMembersTable;
  member_groups: MemberGroupsTable;
  organization_provider_keys: OrganizationProviderKeysTable;
  organization_allow_lists: OrganizationAllowListsTable;
  debug_captures: DebugCapturesTable;
  session_share_links: SessionShareLinksTable;
  alert_rules: AlertRulesTable;
  alert_firings: AlertFiringsTable;
  window_limits: WindowLimitsTable;
  limit_window_spend: LimitWindowSpendTable;
  limit_settings: LimitSettingsTable;
}

export type * from './team-schema.js';
