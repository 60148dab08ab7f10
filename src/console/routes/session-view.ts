import type { ConsoleServices } from '../console-services.js';
import { MAX_SESSION_REQUESTS, sessionCellsOf, sessionRequests, type SessionCell } from '../../store/usage-sessions.js';
import type { SessionLabels } from '../../store/session-labels.js';
import type { SavingsSums } from '../../store/usage-savings.js';
import { addAmounts, cachingSavings, emptyAmounts, priceCell, totalSavings } from '../savings/price-savings.js';

const iso = (ms: number) => new Date(ms).toISOString();

/** `claude-cli/1.0.83` → name and version; the column holds only known agents' product tokens. */
function agentMembers(agent: string | null) {
  const slash = agent?.indexOf('/') ?? -1;
  return agent && slash > 0
    ? { agent: agent.slice(0, slash), agent_version: agent.slice(slash + 1) }
    : { agent: null, agent_version: null };
}

export type Pricer = (model: string, sums: SavingsSums) => ReturnType<typeof priceCell>;

/** Prices with the catalogue in use when called (a reload swaps it). */
export const pricerOf =
  (services: ConsoleServices): Pricer =>
  (model, sums) =>
    priceCell(sums, services.catalogue.find(model)?.pricing);

/** Tokens, cost and savings of priced amounts, as the schemas' `Figures`. */
function figures(amounts: ReturnType<typeof priceCell>) {
  const caching = cachingSavings(amounts);
  return {
    requests: amounts.requests,
    input_tokens: amounts.inputTokens,
    cached_input_tokens: amounts.cacheReadTokens,
    cache_write_tokens: amounts.cacheWriteTokens,
    output_tokens: amounts.outputTokens,
    cost_micro_usd: amounts.costMicroUsd,
    compression_savings_micro_usd: amounts.compressionSavingsMicroUsd,
    caching_savings_micro_usd: caching,
    savings_micro_usd: totalSavings(amounts),
  };
}

/** One session's object from its cells (one per model, key, member and agent version), each priced with its model's prices. */
export function presentSession(id: string, cells: SessionCell[], price: Pricer, labels: SessionLabels) {
  const amounts = emptyAmounts();
  const keys = new Set<string>();
  const members = new Set<string>();
  const models = new Set<string>();
  let agent: string | null = null;
  let startedAt = Infinity;
  let endedAt = -Infinity;
  for (const cell of cells) {
    addAmounts(amounts, price(cell.model, cell));
    keys.add(cell.apiKeyId);
    if (cell.memberId !== null) members.add(cell.memberId);
    models.add(cell.model);
    // The newest version the session ran with (a session may outlive an agent's update).
    if (cell.agent !== null && (agent === null || cell.endedAt >= endedAt)) agent = cell.agent;
    startedAt = Math.min(startedAt, cell.startedAt);
    endedAt = Math.max(endedAt, cell.endedAt);
  }
  const keyIds = [...keys].sort();
  return {
    object: 'session' as const,
    id,
    ...agentMembers(agent),
    api_key_ids: keyIds,
    api_keys: keyIds.map((keyId) => ({ id: keyId, name: labels.keys.get(keyId) ?? null })),
    members: [...members].sort().map((memberId) => {
      const member = labels.members.get(memberId);
      return { id: memberId, email: member?.email ?? null, name: member?.name ?? null };
    }),
    models: [...models].sort(),
    started_at: iso(startedAt),
    ended_at: iso(endedAt),
    duration_ms: Math.max(0, endedAt - startedAt),
    ...figures(amounts),
  };
}

/** Key and member ids a set of cells names, for the label lookup. */
export function idsOf(cells: readonly SessionCell[]) {
  return {
    keyIds: [...new Set(cells.map((c) => c.apiKeyId))],
    memberIds: [...new Set(cells.flatMap((c) => (c.memberId === null ? [] : [c.memberId])))],
  };
}

/** One session with its requests oldest first; undefined when the organization has no such session. */
export async function sessionDetail(
  services: ConsoleServices,
  organizationId: string,
  sessionId: string,
  labelsOf: (cells: SessionCell[]) => Promise<SessionLabels>,
) {
  const price = pricerOf(services);
  const [cells, rows] = await Promise.all([
    sessionCellsOf(services.store, organizationId, sessionId),
    sessionRequests(services.store, organizationId, sessionId),
  ]);
  if (cells.length === 0) return undefined;
  const requests = rows.slice(0, MAX_SESSION_REQUESTS).map((row) => ({
    id: row.id,
    request_id: row.requestId,
    created_at: iso(row.createdAt),
    api_key_id: row.apiKeyId,
    member_id: row.memberId,
    model: row.model,
    endpoint: row.endpoint,
    ...agentMembers(row.agent),
    status_code: row.statusCode,
    error_code: row.errorCode,
    latency_ms: row.latencyMs,
    stream: row.stream,
    compression_strategies: row.strategies,
    ...figures(price(row.model, row)),
  }));
  return {
    ...presentSession(sessionId, cells, price, await labelsOf(cells)),
    requests,
    requests_truncated: rows.length > MAX_SESSION_REQUESTS,
  };
}
