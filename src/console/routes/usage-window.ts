import type { Store } from '../../store/database.js';
import { BUCKET_MS, keyNames, type Granularity } from '../../store/usage-summary.js';
import { ConsoleError } from '../console-error.js';
import type { UsageSummaryQuery } from '../schemas/usage.js';

// The time window and the groups the usage answers (usage.ts, usage-savings.ts) share.

const PERIOD_MS = { '24h': 86_400_000, '7d': 7 * 86_400_000, '30d': 30 * 86_400_000, '90d': 90 * 86_400_000 } as const;
/** 90 days by the hour, with room to spare; a wider window must use days. */
const MAX_BUCKETS = 2_200;
export const OTHER_GROUP = '(other)';

export interface SummaryWindow {
  from: number;
  to: number;
  granularity: Granularity;
  width: number;
  count: number;
}

export function summaryWindow(query: UsageSummaryQuery, now: number): SummaryWindow {
  const period = query.period ?? '7d';
  const granularity: Granularity = query.granularity ?? (query.from === undefined && period === '24h' ? 'hour' : 'day');
  const width = BUCKET_MS[granularity];
  let from: number;
  let to = now;
  if (query.from !== undefined) {
    from = parseTime(query.from, 'from');
    if (query.to !== undefined) to = parseTime(query.to, 'to');
    if (to <= from) throw new ConsoleError('invalid_request', '`to` must be later than `from`.', 'to');
  } else if (query.to !== undefined) {
    throw new ConsoleError('invalid_request', '`to` needs `from`; or use `period` for a window ending now.', 'to');
  } else if (period === 'mtd') {
    const date = new Date(now);
    from = Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), 1);
  } else {
    // Whole buckets, the last one being the current (partial) one.
    const buckets = Math.max(1, Math.round(PERIOD_MS[period] / width));
    from = now - (now % width) - (buckets - 1) * width;
  }
  from -= from % width;
  const count = Math.ceil((to - from) / width);
  if (count > MAX_BUCKETS) {
    throw new ConsoleError(
      'invalid_request',
      `That window has ${count} ${granularity} buckets; the most is ${MAX_BUCKETS}. Use granularity=day or a shorter window.`,
      'granularity',
    );
  }
  return { from, to, granularity, width, count };
}

export function parseTime(value: string, param: string): number {
  const ms = /^\d{4}-\d{2}-\d{2}$/.test(value) ? Date.parse(`${value}T00:00:00Z`) : Date.parse(value);
  if (!Number.isFinite(ms))
    throw new ConsoleError('invalid_request', `\`${param}\` is not an ISO 8601 time: "${value.slice(0, 40)}".`, param);
  return ms;
}

/** The members every usage answer opens with: its window, and the start of each bucket. */
export function windowMembers(window: SummaryWindow) {
  return {
    from: new Date(window.from).toISOString(),
    to: new Date(window.to).toISOString(),
    granularity: window.granularity,
    buckets: Array.from({ length: window.count }, (_, i) => new Date(window.from + i * window.width).toISOString()),
  };
}

/** The label of the empty model or provider: refused requests that named no model, or reached no provider. */
export const REFUSED_GROUP_LABEL = '(refused)';

/** What the groups are called: the keys' names when grouped by key; otherwise none (the key is the label). */
export async function groupLabels(
  store: Store,
  organizationId: string,
  groupBy: string,
  keys: string[],
): Promise<Map<string, string>> {
  if (groupBy === 'api_key') return keyNames(store, organizationId, keys);
  const labels = new Map<string, string>();
  if (keys.includes('')) labels.set('', REFUSED_GROUP_LABEL);
  return labels;
}
