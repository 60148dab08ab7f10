import type { Store } from '../../store/database.js';
import { monthOf } from '../reservation.js';
import { windowAround, type SpendObservation } from './watched-limit.js';

/**
 * The organization's spend in the UTC day or month holding `now` (the sum of its usage rows'
 * cost, read over the (organization_id, created_at) index), against `amountMicroUsd`.
 */
export async function organizationSpend(
  store: Store,
  organizationId: string,
  window: 'daily' | 'monthly',
  amountMicroUsd: number,
  now: number,
): Promise<SpendObservation> {
  const { start, end } = windowAround(window, now);
  const row = await store.db
    .selectFrom('usage_records')
    .select((eb) => eb.fn.sum<number>('cost_micro_usd').as('spent'))
    .where('organization_id', '=', organizationId)
    .where('created_at', '>=', start)
    .where('created_at', '<', end!)
    .executeTakeFirst();
  return {
    subject: 'organization',
    window,
    windowStart: start,
    windowEnd: end,
    limitMicroUsd: amountMicroUsd,
    spentMicroUsd: Number(row?.spent ?? 0),
  };
}

/**
 * Each key's monthly ceiling (api_keys.max_usage_usd) against what the budget ledger settled this
 * month (key_spend.spent_micro_usd; reservations in flight are not spend yet). Keys of another
 * organization or without a ceiling are left out.
 */
export async function keyCeilings(
  store: Store,
  organizationId: string,
  apiKeyIds: readonly string[],
  now: number,
): Promise<Map<string, SpendObservation>> {
  const found = new Map<string, SpendObservation>();
  if (apiKeyIds.length === 0) return found;
  const month = monthOf(now);
  const { start, end } = windowAround('monthly', now);
  const rows = await store.db
    .selectFrom('api_keys')
    .leftJoin('key_spend', (join) =>
      join.onRef('key_spend.api_key_id', '=', 'api_keys.id').on('key_spend.month', '=', month),
    )
    .select(['api_keys.id as id', 'api_keys.max_usage_usd as ceiling', 'key_spend.spent_micro_usd as spent'])
    .where('api_keys.organization_id', '=', organizationId)
    .where('api_keys.id', 'in', apiKeyIds)
    .where('api_keys.max_usage_usd', 'is not', null)
    .execute();
  for (const row of rows)
    found.set(row.id, {
      subject: `key:${row.id}`,
      window: 'monthly',
      windowStart: start,
      windowEnd: end,
      limitMicroUsd: Math.round(Number(row.ceiling) * 1_000_000),
      spentMicroUsd: Number(row.spent ?? 0),
    });
  return found;
}
