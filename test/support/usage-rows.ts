import { randomUUID } from 'node:crypto';
import type { Store } from '../../src/store/database.js';
import type { UsageRecord } from '../../src/metering/usage-record.js';
import { monthOf } from '../../src/limits/budget-ledger.js';

/** A paying chat usage row of `apiKeyId` (organization org-1), as the writer stores it. */
export function usageRecord(apiKeyId: string, costMicroUsd: number): UsageRecord {
  return {
    id: randomUUID(),
    request_id: randomUUID(),
    created_at: Date.now(),
    organization_id: 'org-1',
    api_key_id: apiKeyId,
    model: 'openai/gpt-4o-mini',
    provider: 'mock',
    upstream_model: 'gpt-4o-mini',
    endpoint: 'chat.completions',
    input_tokens: 10,
    cached_input_tokens: 0,
    cache_creation_input_tokens: 0,
    output_tokens: 5,
    reasoning_tokens: 0,
    uncompressed_input_tokens: null,
    cost_micro_usd: costMicroUsd,
    tags: '[]',
    status_code: 200,
    error_code: null,
    latency_ms: 3,
    stream: 0,
  };
}

/** The key's spend and reservation of this month, as the ledger keeps them in key_spend. */
export async function spendOf(store: Store, apiKeyId: string): Promise<{ spent: number; reserved: number }> {
  const row = await store.db
    .selectFrom('key_spend')
    .select(['spent_micro_usd', 'reserved_micro_usd'])
    .where('api_key_id', '=', apiKeyId)
    .where('month', '=', monthOf(Date.now()))
    .executeTakeFirst();
  return { spent: Number(row?.spent_micro_usd ?? 0), reserved: Number(row?.reserved_micro_usd ?? 0) };
}
