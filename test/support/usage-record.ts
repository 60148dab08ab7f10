import { randomUUID } from 'node:crypto';
import type { UsageRecordsTable } from '../../src/store/schema.js';

/**
 * A usage row as the usage writer stores it, for tests that seed usage directly: a successful
 * chat completion of `organizationId` with a fresh id, `fields` on top.
 */
export function usageRecord(
  organizationId: string,
  fields: Partial<UsageRecordsTable> & { created_at: number; api_key_id: string },
): UsageRecordsTable {
  return {
    id: randomUUID(),
    request_id: `req_${randomUUID()}`,
    organization_id: organizationId,
    model: 'openai/gpt-4o-mini',
    provider: 'openai',
    upstream_model: 'gpt-4o-mini',
    endpoint: '/v1/chat/completions',
    input_tokens: 100,
    cached_input_tokens: 0,
    cache_creation_input_tokens: 0,
    output_tokens: 50,
    reasoning_tokens: 0,
    uncompressed_input_tokens: null,
    cost_micro_usd: 1_000,
    tags: '[]',
    status_code: 200,
    error_code: null,
    latency_ms: 10,
    stream: 0,
    ...fields,
  };
}
