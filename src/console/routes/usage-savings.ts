import type { FastifyInstance } from 'fastify';
import type { Static } from '@sinclair/typebox';
import type { ConsoleServices } from '../console-services.js';
import { OrgParamsSchema } from '../schemas/api-key.js';
import { UsageSavingsQuerySchema, UsageSavingsSchema, type UsageSavingsQuery } from '../schemas/usage-savings.js';
import { savingsCells } from '../../store/usage-savings.js';
import {
  addAmounts,
  cachingSavings,
  emptyAmounts,
  needsPrice,
  priceCell,
  totalSavings,
  type SavingsAmounts,
} from '../savings/price-savings.js';
import { OTHER_GROUP, groupLabels, summaryWindow, windowMembers } from './usage-window.js';

const TOP_GROUPS = 10;
const SERIES = [
  'cost_micro_usd',
  'compression_savings_micro_usd',
  'caching_savings_micro_usd',
  'compression_estimated_micro_usd',
  'input_tokens',
  'cache_read_tokens',
  'compression_saved_tokens',
] as const;
type Series = Record<(typeof SERIES)[number], number[]>;

/**
 * GET /v1/organizations/{orgId}/usage/savings: what compression and prompt caching saved, next
 * to what was spent, per key, model or day (docs/web-console.md, "Savings"). Token sums come
 * from SQL per (bucket, group, model); each cell is priced with its model's catalogue prices.
 */
export function registerUsageSavingsRoute(app: FastifyInstance, services: ConsoleServices): void {
  // The catalogue is read per request: a reload swaps it.
  const { store } = services;

  app.get<{ Params: Static<typeof OrgParamsSchema>; Querystring: UsageSavingsQuery }>(
    '/v1/organizations/:orgId/usage/savings',
    {
      schema: {
        summary: 'Money and tokens saved by compression and prompt caching, next to spend',
        tags: ['usage'],
        params: OrgParamsSchema,
        querystring: UsageSavingsQuerySchema,
        response: { 200: UsageSavingsSchema },
      },
    },
    async (request) => {
      const orgId = request.params.orgId;
      const { group_by: groupBy = 'model', ...windowQuery } = request.query;
      const window = summaryWindow(windowQuery, Date.now());
      const cells = await savingsCells(store, { organizationId: orgId, groupBy, ...window });

      const totals = emptyAmounts();
      const series = emptySeries(window.count);
      const groups = new Map<string, SavingsAmounts>();
      const unpriced = new Set<string>();
      for (const cell of cells) {
        const pricing = services.catalogue.find(cell.model)?.pricing;
        if (!pricing && needsPrice(cell)) unpriced.add(cell.model);
        const amounts = priceCell(cell, pricing);
        addAmounts(totals, amounts);
        let group = groups.get(cell.group);
        if (!group) groups.set(cell.group, (group = emptyAmounts()));
        addAmounts(group, amounts);
        const index = Math.floor((cell.bucket - window.from) / window.width);
        if (index >= 0 && index < window.count) addToSeries(series, index, amounts);
      }

      const ordered = groupBy === 'day' ? byDay(groups) : topGroups(groups);
      const names = await groupLabels(
        store,
        orgId,
        groupBy,
        ordered.map(([key]) => key),
      );
      return {
        object: 'usage_savings' as const,
        organization_id: orgId,
        ...windowMembers(window),
        group_by: groupBy,
        totals: present(totals),
        series,
        groups: ordered.map(([key, amounts]) => ({
          key,
          label: names.get(key) ?? key,
          ...present(amounts),
        })),
        unpriced_models: [...unpriced].sort(),
      };
    },
  );
}

function emptySeries(count: number): Series {
  return Object.fromEntries(SERIES.map((name) => [name, new Array<number>(count).fill(0)])) as Series;
}

function addToSeries(series: Series, index: number, a: SavingsAmounts): void {
  series.cost_micro_usd[index]! += a.costMicroUsd;
  series.compression_savings_micro_usd[index]! += a.compressionSavingsMicroUsd;
  series.caching_savings_micro_usd[index]! += cachingSavings(a);
  series.compression_estimated_micro_usd[index]! += a.compressionEstimatedMicroUsd;
  series.input_tokens[index]! += a.inputTokens;
  series.cache_read_tokens[index]! += a.cacheReadTokens;
  series.compression_saved_tokens[index]! += a.compressionSavedTokens;
}

/** Days oldest first, keyed by their UTC date. */
function byDay(groups: Map<string, SavingsAmounts>): Array<[string, SavingsAmounts]> {
  return [...groups]
    .sort(([a], [b]) => Number(a) - Number(b))
    .map(([start, amounts]) => [new Date(Number(start)).toISOString().slice(0, 10), amounts]);
}

/** The largest savers first (then the largest spenders); beyond the top ten, one "(other)". */
function topGroups(groups: Map<string, SavingsAmounts>): Array<[string, SavingsAmounts]> {
  const sorted = [...groups].sort(
    ([ka, a], [kb, b]) =>
      totalSavings(b) - totalSavings(a) ||
      b.costMicroUsd - a.costMicroUsd ||
      b.requests - a.requests ||
      ka.localeCompare(kb),
  );
  if (sorted.length <= TOP_GROUPS + 1) return sorted;
  const other = emptyAmounts();
  for (const [, amounts] of sorted.slice(TOP_GROUPS)) addAmounts(other, amounts);
  return [...sorted.slice(0, TOP_GROUPS), [OTHER_GROUP, other]];
}

function present(a: SavingsAmounts) {
  const caching = cachingSavings(a);
  const savings = caching + a.compressionSavingsMicroUsd;
  const without = a.costMicroUsd + savings;
  return {
    requests: a.requests,
    input_tokens: a.inputTokens,
    output_tokens: a.outputTokens,
    cost_micro_usd: a.costMicroUsd,
    cache_read_tokens: a.cacheReadTokens,
    cache_write_tokens: a.cacheWriteTokens,
    caching_savings_micro_usd: caching,
    cache_read_savings_micro_usd: a.cacheReadSavingsMicroUsd,
    cache_write_extra_micro_usd: a.cacheWriteExtraMicroUsd,
    compressed_requests: a.compressedRequests,
    compression_saved_tokens: a.compressionSavedTokens,
    compression_savings_micro_usd: a.compressionSavingsMicroUsd,
    compression_estimated_micro_usd: a.compressionEstimatedMicroUsd,
    compression_estimated_requests: a.compressionEstimatedRequests,
    estimated: a.compressionEstimatedRequests > 0,
    savings_micro_usd: savings,
    cost_without_savings_micro_usd: without,
    saved_fraction: without > 0 ? savings / without : null,
  };
}
