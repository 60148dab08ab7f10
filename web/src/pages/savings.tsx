import { useMemo, useState } from 'preact/hooks';
import type { ChartConfiguration } from 'chart.js';
import { api, ApiError, orgBase, withQuery, type SavingsCounts, type Session, type UsageSavings } from '../api.js';
import { ChartView } from '../components/chart.js';
import { Empty, ErrorBanner, Loading, Stat, useLoad } from '../components/ui.js';
import { bucketLabel, formatCompact, formatInt, formatUsd, microToUsd } from '../format.js';

const PERIODS = [
  ['24h', 'Last 24 hours'],
  ['7d', 'Last 7 days'],
  ['30d', 'Last 30 days'],
  ['90d', 'Last 90 days'],
  ['mtd', 'Month to date'],
] as const;
const GROUPS = [
  ['api_key', 'API key'],
  ['model', 'Model'],
  ['day', 'Day'],
] as const;
/** The group's name inside a sentence ("by API key", "by model"). */
const inSentence = (groupBy: string) => (groupBy === 'api_key' ? 'API key' : groupBy);
type Period = (typeof PERIODS)[number][0];
type GroupBy = (typeof GROUPS)[number][0];

/** Spent, saved by compression, saved by caching: one colour each, the same on every chart. */
const SPENT = '#0072B2';
const COMPRESSION = '#E69F00';
const CACHING = '#009E73';
const UNCACHED = '#56B4E9';

const percent = (fraction: number | null) =>
  fraction === null ? '—' : `${(fraction * 100).toFixed(Math.abs(fraction) < 0.1 ? 1 : 0)}%`;
/** Money that includes an estimate is shown with "≈". */
const money = (micro: number, estimated = false) => `${estimated ? '≈ ' : ''}${formatUsd(microToUsd(micro))}`;

export function SavingsPage({ session }: { session: Session }) {
  const base = orgBase(session);
  const [period, setPeriod] = useState<Period>('30d');
  const [granularity, setGranularity] = useState<'hour' | 'day'>('day');
  const [groupBy, setGroupBy] = useState<GroupBy>('api_key');
  const savings = useLoad(
    () => api<UsageSavings>('GET', withQuery(`${base}/usage/savings`, { period, granularity, group_by: groupBy })),
    [base, period, granularity, groupBy],
  );
  const choosePeriod = (value: Period) => {
    setPeriod(value);
    setGranularity(value === '24h' ? 'hour' : value === '90d' ? 'day' : granularity);
  };
  const data = savings.data;

  if (savings.error instanceof ApiError && savings.error.routeMissing) {
    return (
      <section>
        <h1>Savings</h1>
        <Empty title="Savings are not available on this gateway">Upgrade the gateway to see what it saved.</Empty>
      </section>
    );
  }
  return (
    <section>
      <header class="page-header">
        <div>
          <h1>Savings</h1>
          <p class="muted">
            What compression and prompt caching saved, next to what was spent. Catalogue prices; times in UTC.
          </p>
        </div>
        <div class="controls" data-testid="savings-controls">
          <label>
            Period
            <select name="period" value={period} onChange={(e) => choosePeriod(e.currentTarget.value as Period)}>
              {PERIODS.map(([value, label]) => (
                <option value={value}>{label}</option>
              ))}
            </select>
          </label>
          <label>
            By
            <select
              name="granularity"
              value={granularity}
              onChange={(e) => setGranularity(e.currentTarget.value as 'hour' | 'day')}
            >
              <option value="hour">Hour</option>
              <option value="day">Day</option>
            </select>
          </label>
          <label>
            Break down by
            <select name="group_by" value={groupBy} onChange={(e) => setGroupBy(e.currentTarget.value as GroupBy)}>
              {GROUPS.map(([value, label]) => (
                <option value={value}>{label}</option>
              ))}
            </select>
          </label>
          <button type="button" onClick={savings.reload}>
            Refresh
          </button>
        </div>
      </header>
      <ErrorBanner error={savings.error} onRetry={savings.reload} />
      {savings.loading && !data && <Loading what="savings" />}
      {data && <SavingsTotals totals={data.totals} />}
      {data && data.totals.requests === 0 && (
        <Empty title="No requests in this period">
          Savings appear once keys with compression on, or models with prompt caching, are used. Pick a longer period.
        </Empty>
      )}
      {data && data.totals.requests > 0 && <SavingsCharts data={data} />}
      {data && data.totals.requests > 0 && <SavingsTable data={data} />}
      {data && <Notes data={data} />}
    </section>
  );
}

function SavingsTotals({ totals }: { totals: SavingsCounts }) {
  return (
    <div class="stats" data-testid="savings-totals">
      <Stat label="Spent" value={money(totals.cost_micro_usd)} detail={`${formatInt(totals.requests)} requests`} />
      <Stat
        label="Saved in total"
        value={money(totals.savings_micro_usd, totals.estimated)}
        detail={`${percent(totals.saved_fraction)} of ${money(totals.cost_without_savings_micro_usd, totals.estimated)} without savings`}
      />
      <Stat
        label="Saved by compression"
        value={money(totals.compression_savings_micro_usd, totals.estimated)}
        detail={`${formatCompact(totals.compression_saved_tokens)} input tokens removed in ${formatInt(totals.compressed_requests)} requests`}
      />
      <Stat
        label="Saved by caching"
        value={money(totals.caching_savings_micro_usd)}
        detail={`${formatCompact(totals.cache_read_tokens)} tokens read from cache; writes cost ${money(totals.cache_write_extra_micro_usd)} extra`}
      />
    </div>
  );
}

function SavingsCharts({ data }: { data: UsageSavings }) {
  const labels = useMemo(() => data.buckets.map((b) => bucketLabel(b, data.granularity)), [data]);
  const moneyChart = useMemo<ChartConfiguration<'bar'>>(
    () => ({
      type: 'bar',
      data: {
        labels,
        datasets: [
          { label: 'Spent', data: data.series.cost_micro_usd.map(microToUsd), backgroundColor: SPENT },
          {
            label: 'Saved by compression',
            data: data.series.compression_savings_micro_usd.map(microToUsd),
            backgroundColor: COMPRESSION,
          },
          {
            label: 'Saved by caching',
            data: data.series.caching_savings_micro_usd.map(microToUsd),
            backgroundColor: CACHING,
          },
        ].map((set) => ({ ...set, borderWidth: 0, maxBarThickness: 48 })),
      },
      options: {
        interaction: { mode: 'index', intersect: false },
        scales: {
          x: { stacked: true, grid: { display: false }, ticks: { autoSkip: true, maxRotation: 0 } },
          y: { stacked: true, beginAtZero: true, ticks: { callback: (value) => formatUsd(Number(value)) } },
        },
        plugins: {
          legend: { position: 'bottom', labels: { boxWidth: 12 } },
          tooltip: {
            callbacks: {
              label: (item) => `${item.dataset.label}: ${formatUsd(Number(item.raw))}`,
              footer: (items) =>
                `Without savings: ${formatUsd(items.reduce((sum, item) => sum + Number(item.raw), 0))}`,
            },
          },
        },
      },
    }),
    [data, labels],
  );
  const tokens = useMemo<ChartConfiguration<'bar'>>(
    () => ({
      type: 'bar',
      data: {
        labels,
        datasets: [
          {
            label: 'Sent, not cached',
            data: data.series.input_tokens.map((input, i) => input - data.series.cache_read_tokens[i]!),
            backgroundColor: UNCACHED,
          },
          { label: 'Read from cache', data: data.series.cache_read_tokens, backgroundColor: CACHING },
          { label: 'Removed by compression', data: data.series.compression_saved_tokens, backgroundColor: COMPRESSION },
        ].map((set) => ({ ...set, borderWidth: 0, maxBarThickness: 48 })),
      },
      options: {
        interaction: { mode: 'index', intersect: false },
        scales: {
          x: { stacked: true, grid: { display: false }, ticks: { autoSkip: true, maxRotation: 0 } },
          y: { stacked: true, beginAtZero: true, ticks: { callback: (value) => formatCompact(Number(value)) } },
        },
        plugins: {
          legend: { position: 'bottom', labels: { boxWidth: 12 } },
          tooltip: { callbacks: { label: (item) => `${item.dataset.label}: ${formatInt(Number(item.raw))}` } },
        },
      },
    }),
    [data, labels],
  );
  const groupName = GROUPS.find(([value]) => value === data.group_by)?.[1] ?? data.group_by;
  const perGroup = useMemo<ChartConfiguration<'bar'>>(
    () => ({
      type: 'bar',
      data: {
        labels: data.groups.map((g) => g.label),
        datasets: [
          { label: 'Spent', data: data.groups.map((g) => microToUsd(g.cost_micro_usd)), backgroundColor: SPENT },
          {
            label: 'Saved by compression',
            data: data.groups.map((g) => microToUsd(g.compression_savings_micro_usd)),
            backgroundColor: COMPRESSION,
          },
          {
            label: 'Saved by caching',
            data: data.groups.map((g) => microToUsd(g.caching_savings_micro_usd)),
            backgroundColor: CACHING,
          },
        ].map((set) => ({ ...set, borderWidth: 0, maxBarThickness: 28 })),
      },
      options: {
        indexAxis: 'y',
        interaction: { mode: 'index', intersect: false },
        scales: {
          x: { stacked: true, beginAtZero: true, ticks: { callback: (value) => formatUsd(Number(value)) } },
          y: { stacked: true, grid: { display: false } },
        },
        plugins: {
          legend: { position: 'bottom', labels: { boxWidth: 12 } },
          tooltip: { callbacks: { label: (item) => `${item.dataset.label}: ${formatUsd(Number(item.raw))}` } },
        },
      },
    }),
    [data],
  );
  return (
    <>
      <div class="grid-2">
        <div class="card">
          <h2>Spent and saved per {data.granularity}</h2>
          <ChartView
            config={moneyChart as ChartConfiguration}
            label={`Spend, compression savings and caching savings per ${data.granularity}; each bar is what the requests would have cost without savings`}
            testId="savings-chart"
          />
        </div>
        <div class="card">
          <h2>Input tokens per {data.granularity}</h2>
          <ChartView
            config={tokens as ChartConfiguration}
            label={`Input tokens per ${data.granularity}: sent uncached, read from cache, and removed by compression`}
            testId="savings-tokens-chart"
          />
        </div>
      </div>
      {data.group_by !== 'day' && (
        <div class="card">
          <h2>Spent and saved by {inSentence(data.group_by)}</h2>
          <ChartView
            config={perGroup as ChartConfiguration}
            height={Math.max(160, 44 * data.groups.length + 60)}
            label={`Spend and savings by ${groupName}`}
            testId="savings-groups-chart"
          />
        </div>
      )}
    </>
  );
}

function SavingsTable({ data }: { data: UsageSavings }) {
  const groupName = GROUPS.find(([value]) => value === data.group_by)?.[1] ?? data.group_by;
  const rows = data.group_by === 'day' ? [...data.groups].reverse() : data.groups;
  return (
    <div class="card">
      <h2>By {inSentence(data.group_by)}</h2>
      <div class="table-scroll">
        <table data-testid="savings-groups">
          <thead>
            <tr>
              <th>{groupName}</th>
              <th class="num">Requests</th>
              <th class="num">Spent</th>
              <th class="num">Saved by compression</th>
              <th class="num">Saved by caching</th>
              <th class="num">Saved in total</th>
              <th class="num">Share saved</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((group) => (
              <tr key={group.key} data-testid="savings-row" data-group={group.key}>
                <td class="nowrap">{group.label}</td>
                <td class="num">{formatInt(group.requests)}</td>
                <td class="num">{money(group.cost_micro_usd)}</td>
                <td class="num">
                  <span data-testid="compression-saved">
                    {money(group.compression_savings_micro_usd, group.estimated)}
                  </span>
                  <div class="muted small">{formatCompact(group.compression_saved_tokens)} tokens removed</div>
                </td>
                <td class="num">
                  <span data-testid="caching-saved">{money(group.caching_savings_micro_usd)}</span>
                  <div class="muted small">{formatCompact(group.cache_read_tokens)} tokens from cache</div>
                </td>
                <td class="num strong">{money(group.savings_micro_usd, group.estimated)}</td>
                <td class="num">{percent(group.saved_fraction)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </div>
  );
}

function Notes({ data }: { data: UsageSavings }) {
  const t = data.totals;
  return (
    <div class="notes muted small" data-testid="savings-notes">
      <p>
        <strong>Caching</strong>: cached reads at the model's input price minus what they cost at its cached price,
        minus what cache writes cost above the input price. <strong>Compression</strong>: the saving the gateway
        recorded for each request, prompt caching counted.
      </p>
      {t.estimated && (
        <p data-testid="estimate-note">
          ≈ marks estimates: {formatInt(t.compression_estimated_requests)} compressed requests carry no recorded saving,
          so the tokens compression removed from them are priced at the model's input price (
          {money(t.compression_estimated_micro_usd)} of the compression total).
        </p>
      )}
      {data.unpriced_models.length > 0 && (
        <p>
          No catalogue price for {data.unpriced_models.join(', ')}: their caching savings and estimates count as $0.
        </p>
      )}
    </div>
  );
}
