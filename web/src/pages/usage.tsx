import { useMemo, useState } from 'preact/hooks';
import type { ChartConfiguration } from 'chart.js';
import { api, withQuery, type KeySpend, type ListBody, type Session, type UsageSummary } from '../api.js';
import { ChartView, colour } from '../components/chart.js';
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
  ['model', 'Model'],
  ['provider', 'Provider'],
  ['api_key', 'API key'],
  ['tag', 'Tag'],
] as const;
type Period = (typeof PERIODS)[number][0];
type GroupBy = (typeof GROUPS)[number][0];

export function UsagePage({ session }: { session: Session }) {
  const base = `/v1/organizations/${encodeURIComponent(session.organization.id)}`;
  const [period, setPeriod] = useState<Period>('7d');
  const [granularity, setGranularity] = useState<'hour' | 'day'>('day');
  const [groupBy, setGroupBy] = useState<GroupBy>('model');
  const summary = useLoad(
    () => api<UsageSummary>('GET', withQuery(`${base}/usage/summary`, { period, granularity, group_by: groupBy })),
    [base, period, granularity, groupBy],
  );
  const keys = useLoad(() => api<ListBody<KeySpend> & { month: string }>('GET', `${base}/usage/keys`), [base]);
  const choosePeriod = (value: Period) => {
    setPeriod(value);
    // Hours suit a day; days suit anything longer (90 days of hours is 2,160 bars).
    setGranularity(value === '24h' ? 'hour' : value === '90d' ? 'day' : granularity);
  };
  const data = summary.data;
  const groupName = GROUPS.find(([value]) => value === groupBy)?.[1] ?? groupBy;

  return (
    <section>
      <header class="page-header">
        <div>
          <h1>Usage and cost</h1>
          <p class="muted">Catalogue prices; times in UTC. Refreshes when you change a setting.</p>
        </div>
        <div class="controls" data-testid="usage-controls">
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
          <button type="button" onClick={() => (summary.reload(), keys.reload())}>
            Refresh
          </button>
        </div>
      </header>
      <ErrorBanner error={summary.error} onRetry={summary.reload} />
      {summary.loading && !data && <Loading what="usage" />}
      {data && (
        <>
          <div class="stats" data-testid="usage-totals">
            <Stat
              label="Spend"
              value={formatUsd(data.totals.cost_usd)}
              detail={`${formatInt(data.totals.cost_micro_usd)} micro-USD`}
            />
            <Stat
              label="Requests"
              value={formatInt(data.totals.requests)}
              detail={data.totals.errors > 0 ? `${formatInt(data.totals.errors)} failed` : 'none failed'}
            />
            <Stat
              label="Input tokens"
              value={formatCompact(data.totals.input_tokens)}
              detail={formatInt(data.totals.input_tokens)}
            />
            <Stat
              label="Output tokens"
              value={formatCompact(data.totals.output_tokens)}
              detail={formatInt(data.totals.output_tokens)}
            />
          </div>
          {data.totals.requests === 0 ? (
            <Empty title="No requests in this period">
              Make a request to the gateway with one of your API keys (for example to <code>local/echo</code>), or pick
              a longer period.
            </Empty>
          ) : (
            <UsageCharts data={data} groupName={groupName} />
          )}
        </>
      )}
      <KeyCeilings state={keys} />
    </section>
  );
}

function UsageCharts({ data, groupName }: { data: UsageSummary; groupName: string }) {
  const labels = useMemo(() => data.buckets.map((b) => bucketLabel(b, data.granularity)), [data]);
  // Tags overlap (a request may carry several), so their bars stand side by side instead of adding up.
  const stack = data.group_by !== 'tag';
  const stacked = (metric: 'cost' | 'tokens'): ChartConfiguration<'bar'> => ({
    type: 'bar',
    data: {
      labels,
      datasets: data.groups.map((group, i) => ({
        label: group.label,
        data: metric === 'cost' ? group.series.cost_micro_usd.map(microToUsd) : group.series.tokens,
        backgroundColor: colour(i),
        borderWidth: 0,
        maxBarThickness: 48,
      })),
    },
    options: {
      interaction: { mode: 'index', intersect: false },
      scales: {
        x: { stacked: stack, grid: { display: false }, ticks: { autoSkip: true, maxRotation: 0 } },
        y: {
          stacked: stack,
          beginAtZero: true,
          ticks: { callback: (value) => (metric === 'cost' ? formatUsd(Number(value)) : formatCompact(Number(value))) },
        },
      },
      plugins: {
        legend: { position: 'bottom', labels: { boxWidth: 12 } },
        tooltip: {
          callbacks: {
            label: (item) =>
              `${item.dataset.label}: ${metric === 'cost' ? formatUsd(Number(item.raw)) : formatInt(Number(item.raw))}`,
          },
        },
      },
    },
  });
  const spendChart = useMemo(() => stacked('cost'), [data, labels]);
  const tokenChart = useMemo(() => stacked('tokens'), [data, labels]);
  const share = useMemo<ChartConfiguration<'doughnut'>>(() => {
    const byCost = data.totals.cost_micro_usd > 0;
    return {
      type: 'doughnut',
      data: {
        labels: data.groups.map((g) => g.label),
        datasets: [
          {
            data: data.groups.map((g) => (byCost ? microToUsd(g.cost_micro_usd) : g.input_tokens + g.output_tokens)),
            backgroundColor: data.groups.map((_, i) => colour(i)),
            borderWidth: 1,
          },
        ],
      },
      options: {
        cutout: '60%',
        plugins: {
          legend: { position: 'right', labels: { boxWidth: 12 } },
          tooltip: {
            callbacks: {
              label: (item) =>
                `${item.label}: ${byCost ? formatUsd(Number(item.raw)) : `${formatInt(Number(item.raw))} tokens`}`,
            },
          },
        },
      },
    };
  }, [data]);

  return (
    <>
      <div class="grid-2">
        <div class="card">
          <h2>Spend over time, by {groupName.toLowerCase()}</h2>
          <ChartView
            config={spendChart as ChartConfiguration}
            label={`Spend per ${data.granularity} by ${groupName}`}
            testId="spend-chart"
          />
        </div>
        <div class="card">
          <h2>Tokens over time, by {groupName.toLowerCase()}</h2>
          <ChartView
            config={tokenChart as ChartConfiguration}
            label={`Input and output tokens per ${data.granularity} by ${groupName}`}
            testId="tokens-chart"
          />
        </div>
      </div>
      <div class="grid-2 breakdown">
        <div class="card">
          <h2>{data.totals.cost_micro_usd > 0 ? 'Share of spend' : 'Share of tokens'}</h2>
          <ChartView
            config={share as ChartConfiguration}
            height={240}
            label={`Share by ${groupName}`}
            testId="share-chart"
          />
        </div>
        <div class="card">
          <h2>By {groupName.toLowerCase()}</h2>
          {data.group_by === 'tag' && <p class="muted small">A request with several tags counts under each of them.</p>}
          <table data-testid="usage-groups">
            <thead>
              <tr>
                <th>{groupName}</th>
                <th class="num">Requests</th>
                <th class="num">Input</th>
                <th class="num">Output</th>
                <th class="num">Spend</th>
              </tr>
            </thead>
            <tbody>
              {data.groups.map((group, i) => (
                <tr key={group.key}>
                  <td>
                    <span class="swatch" style={{ background: colour(i) }} />
                    {group.label}
                  </td>
                  <td class="num">{formatInt(group.requests)}</td>
                  <td class="num">{formatInt(group.input_tokens)}</td>
                  <td class="num">{formatInt(group.output_tokens)}</td>
                  <td class="num">{formatUsd(group.cost_usd)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </div>
    </>
  );
}

function KeyCeilings({ state }: { state: ReturnType<typeof useLoad<ListBody<KeySpend> & { month: string }>> }) {
  const rows = state.data?.data ?? [];
  return (
    <div class="card" data-testid="key-ceilings">
      <h2>Month to date per key{state.data ? ` (${state.data.month}, UTC)` : ''}</h2>
      <ErrorBanner error={state.error} onRetry={state.reload} />
      {state.data && rows.length === 0 && (
        <Empty title="No keys">
          Create a key on the API keys page; its spend against its monthly ceiling shows here.
        </Empty>
      )}
      {rows.length > 0 && (
        <table>
          <thead>
            <tr>
              <th>Key</th>
              <th class="num">Spent</th>
              <th class="num">Ceiling</th>
              <th class="meter-col">Used</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((row) => {
              const fraction = row.used_fraction;
              const level = fraction === null ? 'none' : fraction >= 1 ? 'over' : fraction >= 0.8 ? 'high' : 'ok';
              return (
                <tr key={row.api_key_id} data-testid="key-spend-row" data-key-name={row.name}>
                  <td>
                    {row.name} {!row.active && <span class="badge off">Inactive</span>}
                  </td>
                  <td class="num" data-testid="key-spend">
                    {formatUsd(row.spent_usd)}
                  </td>
                  <td class="num">
                    {row.max_usage === null ? <span class="muted">none</span> : `$${formatInt(row.max_usage)}`}
                  </td>
                  <td>
                    {fraction === null ? (
                      <span class="muted small">no ceiling</span>
                    ) : (
                      <div class={`meter ${level}`} title={`${(fraction * 100).toFixed(1)}% of the ceiling`}>
                        <div style={{ width: `${Math.min(100, fraction * 100)}%` }} />
                        <span>{(fraction * 100).toFixed(fraction < 0.1 ? 2 : 1)}%</span>
                      </div>
                    )}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
    </div>
  );
}
