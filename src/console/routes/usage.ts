import type { FastifyInstance } from 'fastify';
import type { Static } from '@sinclair/typebox';
import type { ConsoleServices } from '../console-services.js';
import { OrgParamsSchema } from '../schemas/api-key.js';
import {
  KeySpendListSchema,
  KeySpendQuerySchema,
  UsageSummaryQuerySchema,
  UsageSummarySchema,
  type UsageSummaryQuery,
} from '../schemas/usage.js';
import { keySpendForMonth, usageCells, type UsageCell, type UsageTotals } from '../../store/usage-summary.js';
import { monthOf } from '../../limits/budget-ledger.js';
import { confinedMemberId } from '../auth/member-scope.js';
import { OTHER_GROUP, groupLabels, summaryWindow, windowMembers, type SummaryWindow } from './usage-window.js';

const TOP_GROUPS = 10;

const usd = (micro: number) => micro / 1_000_000;

/**
 * Usage and cost for the web console (docs/web-console.md): time series per model, provider,
 * key or tag, summed in the database; and month-to-date spend of each key against its ceiling.
 */
export function registerUsageRoutes(app: FastifyInstance, services: ConsoleServices): void {
  const { store, apiKeys } = services;

  app.get<{ Params: Static<typeof OrgParamsSchema>; Querystring: UsageSummaryQuery }>(
    '/v1/organizations/:orgId/usage/summary',
    {
      schema: {
        summary: 'Spend, tokens and requests over time, broken down',
        tags: ['usage'],
        params: OrgParamsSchema,
        querystring: UsageSummaryQuerySchema,
        response: { 200: UsageSummarySchema },
      },
    },
    async (request) => {
      const orgId = request.params.orgId;
      const window = summaryWindow(request.query, Date.now());
      const groupBy = request.query.group_by ?? 'model';
      const { cells, totals } = await usageCells(store, {
        organizationId: orgId,
        groupBy,
        ...window,
        ...(request.query.member_id !== undefined ? { memberId: request.query.member_id } : {}),
      });
      const groups = topGroups(cells, window);
      const names = await groupLabels(
        store,
        orgId,
        groupBy,
        groups.map((g) => g.key),
      );
      return {
        object: 'usage_summary' as const,
        organization_id: orgId,
        ...windowMembers(window),
        group_by: groupBy,
        totals: presentCounts(totals),
        groups: groups.map((group) => ({
          key: group.key,
          label: names.get(group.key) ?? group.key,
          ...presentCounts(group.totals),
          series: group.series,
        })),
      };
    },
  );

  app.get<{ Params: Static<typeof OrgParamsSchema>; Querystring: Static<typeof KeySpendQuerySchema> }>(
    '/v1/organizations/:orgId/usage/keys',
    {
      schema: {
        summary: "Each key's spend in a month against its monthly ceiling",
        tags: ['usage'],
        params: OrgParamsSchema,
        querystring: KeySpendQuerySchema,
        response: { 200: KeySpendListSchema },
      },
    },
    async (request) => {
      const orgId = request.params.orgId;
      const month = request.query.month ?? monthOf(Date.now());
      const self = confinedMemberId(request);
      const keys = (await apiKeys.list(orgId)).filter((key) => self === null || key.memberId === self);
      const spend = await keySpendForMonth(
        store,
        keys.map((k) => k.id),
        month,
      );
      const data = keys.map((key) => {
        const row = spend.get(key.id);
        const spent = row?.spentMicroUsd ?? 0;
        return {
          api_key_id: key.id,
          name: key.name,
          active: key.active,
          max_usage: key.maxUsageUsd,
          spent_micro_usd: spent,
          reserved_micro_usd: row?.reservedMicroUsd ?? 0,
          spent_usd: usd(spent),
          used_fraction:
            key.maxUsageUsd === null
              ? null
              : key.maxUsageUsd === 0
                ? spent > 0
                  ? 1
                  : 0
                : usd(spent) / key.maxUsageUsd,
        };
      });
      data.sort((a, b) => b.spent_micro_usd - a.spent_micro_usd || a.name.localeCompare(b.name));
      return { object: 'list' as const, month, data };
    },
  );
}

interface Group {
  key: string;
  totals: UsageTotals;
  series: { requests: number[]; tokens: number[]; cost_micro_usd: number[] };
}

/** Groups with a series each, the largest by cost first; beyond the top ten, one "(other)". */
function topGroups(cells: UsageCell[], window: SummaryWindow): Group[] {
  const byKey = new Map<string, Group>();
  const groupOf = (key: string) => {
    let group = byKey.get(key);
    if (!group) byKey.set(key, (group = emptyGroup(key, window.count)));
    return group;
  };
  const add = (group: Group, cell: UsageTotals, index: number) => {
    group.totals.requests += cell.requests;
    group.totals.errors += cell.errors;
    group.totals.inputTokens += cell.inputTokens;
    group.totals.outputTokens += cell.outputTokens;
    group.totals.costMicroUsd += cell.costMicroUsd;
    group.series.requests[index]! += cell.requests;
    group.series.tokens[index]! += cell.inputTokens + cell.outputTokens;
    group.series.cost_micro_usd[index]! += cell.costMicroUsd;
  };
  for (const cell of cells) {
    const index = Math.floor((cell.bucket - window.from) / window.width);
    if (index >= 0 && index < window.count) add(groupOf(cell.group), cell, index);
  }
  const sorted = [...byKey.values()].sort(
    (a, b) =>
      b.totals.costMicroUsd - a.totals.costMicroUsd ||
      b.totals.inputTokens + b.totals.outputTokens - (a.totals.inputTokens + a.totals.outputTokens) ||
      b.totals.requests - a.totals.requests ||
      a.key.localeCompare(b.key),
  );
  if (sorted.length <= TOP_GROUPS + 1) return sorted;
  const other = emptyGroup(OTHER_GROUP, window.count);
  for (const group of sorted.slice(TOP_GROUPS)) {
    for (const field of ['requests', 'errors', 'inputTokens', 'outputTokens', 'costMicroUsd'] as const)
      other.totals[field] += group.totals[field];
    for (const series of ['requests', 'tokens', 'cost_micro_usd'] as const) {
      group.series[series].forEach((value, i) => (other.series[series][i]! += value));
    }
  }
  return [...sorted.slice(0, TOP_GROUPS), other];
}

function emptyGroup(key: string, buckets: number): Group {
  const zeros = () => new Array<number>(buckets).fill(0);
  return {
    key,
    totals: { requests: 0, errors: 0, inputTokens: 0, outputTokens: 0, costMicroUsd: 0 },
    series: { requests: zeros(), tokens: zeros(), cost_micro_usd: zeros() },
  };
}

function presentCounts(totals: UsageTotals) {
  return {
    requests: totals.requests,
    errors: totals.errors,
    input_tokens: totals.inputTokens,
    output_tokens: totals.outputTokens,
    cost_micro_usd: totals.costMicroUsd,
    cost_usd: usd(totals.costMicroUsd),
  };
}
