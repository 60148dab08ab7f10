import { useState } from 'preact/hooks';
import { api, ApiError, orgBase, withQuery, type ListBody, type Session } from '../api.js';
import { Empty, ErrorBanner, Loading, useLoad } from '../components/ui.js';
import { formatInt, formatUsd, microToUsd } from '../format.js';
import { navigate } from '../router.js';
import {
  agentLabel,
  agentName,
  formatDuration,
  type SessionFilterValues,
  type SessionSummary,
} from '../session-types.js';

const PAGE = 50;
/** "06 Dec 23:16" (UTC): the year and zone are in the page's sentence, not in every row. */
const shortStart = (iso: string) =>
  new Date(iso).toLocaleString('en-GB', {
    day: '2-digit',
    month: 'short',
    hour: '2-digit',
    minute: '2-digit',
    timeZone: 'UTC',
  });
/** `anthropic/claude-sonnet-4-5` → `claude-sonnet-4-5`: the provider is in the full name's tooltip. */
const shortModel = (model: string) => model.slice(model.indexOf('/') + 1);
const money = (micro: number) => formatUsd(microToUsd(micro));

interface Filters {
  member: string;
  agent: string;
  key: string;
  from: string;
  to: string;
}
const NO_FILTERS: Filters = { member: '', agent: '', key: '', from: '', to: '' };

/** Dates are UTC days; `to` is inclusive, so the query's exclusive end is the next midnight. */
function sessionQuery(filters: Filters, after?: string) {
  const nextDay = (day: string) => new Date(Date.parse(`${day}T00:00:00Z`) + 86_400_000).toISOString();
  return {
    limit: PAGE,
    member_id: filters.member || undefined,
    agent: filters.agent || undefined,
    api_key_id: filters.key || undefined,
    from: filters.from ? `${filters.from}T00:00:00Z` : undefined,
    to: filters.to ? nextDay(filters.to) : undefined,
    starting_after: after,
  };
}

export function SessionsPage({ session }: { session: Session }) {
  const base = orgBase(session);
  const [filters, setFilters] = useState<Filters>(NO_FILTERS);
  const [applied, setApplied] = useState<Filters>(NO_FILTERS);
  const [more, setMore] = useState<SessionSummary[]>([]);
  const [moreError, setMoreError] = useState<unknown>(null);
  const values = useLoad(() => api<SessionFilterValues>('GET', `${base}/session_filters`), [base]);
  const page = useLoad(async () => {
    setMore([]);
    return api<ListBody<SessionSummary>>('GET', withQuery(`${base}/sessions`, sessionQuery(applied)));
  }, [base, applied]);
  const set = (patch: Partial<Filters>) => setFilters((current) => ({ ...current, ...patch }));
  const rows = [...(page.data?.data ?? []), ...more];
  const [hasMore, setHasMore] = useState<boolean | null>(null);
  const canLoadMore = hasMore ?? page.data?.has_more ?? false;

  const loadMore = async () => {
    setMoreError(null);
    try {
      const next = await api<ListBody<SessionSummary>>(
        'GET',
        withQuery(`${base}/sessions`, sessionQuery(applied, rows[rows.length - 1]?.id)),
      );
      setMore((current) => [...current, ...next.data]);
      setHasMore(next.has_more ?? false);
    } catch (failure) {
      setMoreError(failure);
    }
  };

  if (page.error instanceof ApiError && page.error.routeMissing) {
    return (
      <section>
        <h1>Sessions</h1>
        <Empty title="Sessions are not available on this gateway">Upgrade the gateway to see coding sessions.</Empty>
      </section>
    );
  }
  return (
    <section>
      <header class="page-header">
        <div>
          <h1>Sessions</h1>
          <p class="muted">
            Coding-agent sessions (Claude Code, Codex, opencode and any client that sends a session id), newest first:
            who ran them, with which key and models, what they cost and what compression and prompt caching saved.
            Figures count only the requests that pass the filters.
          </p>
        </div>
      </header>
      <form
        class="card filters"
        data-testid="session-filters"
        onSubmit={(event) => {
          event.preventDefault();
          setHasMore(null);
          setApplied(filters);
        }}
      >
        <label>
          Member
          <select name="member_id" value={filters.member} onChange={(e) => set({ member: e.currentTarget.value })}>
            <option value="">All members</option>
            {(values.data?.members ?? []).map((m) => (
              <option value={m.id}>{m.email ?? m.id}</option>
            ))}
          </select>
        </label>
        <label>
          Agent
          <select name="agent" value={filters.agent} onChange={(e) => set({ agent: e.currentTarget.value })}>
            <option value="">All agents</option>
            {(values.data?.agents ?? []).map((agent) => (
              <option value={agent}>{agentName(agent)}</option>
            ))}
          </select>
        </label>
        <label>
          API key
          <select name="api_key_id" value={filters.key} onChange={(e) => set({ key: e.currentTarget.value })}>
            <option value="">All keys</option>
            {(values.data?.api_keys ?? []).map((k) => (
              <option value={k.id}>{k.name ?? k.id}</option>
            ))}
          </select>
        </label>
        <label>
          From <span class="muted">(UTC)</span>
          <input type="date" name="from" value={filters.from} onInput={(e) => set({ from: e.currentTarget.value })} />
        </label>
        <label>
          To <span class="muted">(inclusive)</span>
          <input type="date" name="to" value={filters.to} onInput={(e) => set({ to: e.currentTarget.value })} />
        </label>
        <div class="form-actions">
          <button class="primary" type="submit">
            Apply filters
          </button>
        </div>
      </form>
      <ErrorBanner error={values.error} onRetry={values.reload} />
      <ErrorBanner error={page.error} onRetry={page.reload} />
      {page.loading && <Loading what="sessions" />}
      {!page.loading && page.data && rows.length === 0 && (
        <Empty title="No sessions match these filters">
          Sessions appear once a coding agent sends requests through the gateway with its session header.
        </Empty>
      )}
      {!page.loading && rows.length > 0 && (
        <div class="table-wrap">
          <table data-testid="sessions-table" class="sessions-table">
            <thead>
              <tr>
                {['Started (UTC)', 'Agent', 'Member · key', 'Models'].map((name) => (
                  <th rowSpan={2}>{name}</th>
                ))}
                {['Duration', 'Requests'].map((name) => (
                  <th rowSpan={2} class="num">
                    {name}
                  </th>
                ))}
                <th colSpan={4} class="num">
                  Tokens
                </th>
                <th rowSpan={2} class="num">
                  Cost
                </th>
                <th colSpan={2} class="num">
                  Saved by
                </th>
              </tr>
              <tr>
                {['Input', 'Cached', 'Written', 'Output', 'Compression', 'Caching'].map((name) => (
                  <th class="num">{name}</th>
                ))}
              </tr>
            </thead>
            <tbody>
              {rows.map((s) => {
                const href = `/sessions/${encodeURIComponent(s.id)}`;
                return (
                  <tr key={s.id} class="session-row" data-testid="session-row" onClick={() => navigate(href)}>
                    <td>
                      <a href={href} onClick={(e) => e.preventDefault()}>
                        {shortStart(s.started_at)}
                      </a>
                    </td>
                    <td>{agentLabel(s)}</td>
                    <td>
                      {(s.members ?? []).map((m) => m.email ?? m.id).join(', ') || '—'}
                      <div class="muted small">{(s.api_keys ?? []).map((k) => k.name ?? k.id).join(', ')}</div>
                    </td>
                    <td class="small wrap" title={s.models.join(', ')}>
                      {s.models.map(shortModel).join(', ')}
                    </td>
                    <td class="num">{formatDuration(s.duration_ms)}</td>
                    <td class="num">{formatInt(s.requests)}</td>
                    <td class="num">{formatInt(s.input_tokens)}</td>
                    <td class="num">{formatInt(s.cached_input_tokens)}</td>
                    <td class="num">{formatInt(s.cache_write_tokens)}</td>
                    <td class="num">{formatInt(s.output_tokens)}</td>
                    <td class="num mono" data-testid="session-cost">
                      {money(s.cost_micro_usd)}
                    </td>
                    <td class="num mono">{money(s.compression_savings_micro_usd)}</td>
                    <td class="num mono">{money(s.caching_savings_micro_usd)}</td>
                  </tr>
                );
              })}
            </tbody>
          </table>
          <ErrorBanner error={moreError} />
          {canLoadMore && (
            <button type="button" onClick={loadMore} data-testid="more-sessions">
              Load more sessions
            </button>
          )}
        </div>
      )}
    </section>
  );
}
