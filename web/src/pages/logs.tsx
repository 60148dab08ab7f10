import { useState } from 'preact/hooks';
import {
  api,
  ApiError,
  download,
  storedToken,
  withQuery,
  type ApiKey,
  type ListBody,
  type Query,
  type Session,
} from '../api.js';
import { Empty, ErrorBanner, Loading, useLoad } from '../components/ui.js';
import { formatDate, formatInt } from '../format.js';

const PREVIEW_ROWS = 200;
const PERIODS = ['1h', '24h', '7d', '30d', '90d'] as const;

interface ExportRow {
  id: string;
  timestamp: string;
  api_key_id: string;
  api_key_name: string | null;
  model: string;
  provider: string;
  input_tokens: number;
  output_tokens: number;
  cost: string;
  tags: string[];
  status: number;
  /** Why a refused or failed request was answered as it was; null when it was answered. */
  error_code: string | null;
}

interface Filters {
  period: string;
  from: string;
  to: string;
  keys: string[];
  tags: string;
}

function exportQuery(filters: Filters, format: 'csv' | 'json'): Query {
  return {
    format,
    ...(filters.from || filters.to
      ? { from_date: filters.from || undefined, to_date: filters.to || undefined }
      : { period: filters.period }),
    'api_key_id[]': filters.keys,
    'tags[]': filters.tags
      .split(',')
      .map((t) => t.trim())
      .filter(Boolean),
  };
}

/**
 * The first rows of the JSON export, read as a stream and cancelled once enough have arrived:
 * the export writes one record per line, so a large period costs the page only what it shows.
 */
async function previewRows(path: string): Promise<{ rows: ExportRow[]; complete: boolean }> {
  const token = storedToken();
  const response = await fetch(path, { headers: token ? { authorization: `Bearer ${token}` } : {} });
  if (!response.ok) {
    const problem = (await response.json().catch(() => ({}))) as { message?: string; param?: string };
    throw new ApiError(
      response.status,
      problem.message ?? `${response.status} ${response.statusText}`,
      problem.param ?? null,
    );
  }
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  const rows: ExportRow[] = [];
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (value) buffer += value;
    const lines = buffer.split('\n');
    buffer = done ? '' : lines.pop()!;
    for (const line of lines) {
      const text = line.trim().replace(/,$/, '');
      if (text.startsWith('{')) rows.push(JSON.parse(text) as ExportRow);
    }
    if (rows.length > PREVIEW_ROWS) {
      await reader.cancel();
      return { rows: rows.slice(0, PREVIEW_ROWS), complete: false };
    }
    if (done) return { rows, complete: true };
  }
}

export function LogsPage({ session }: { session: Session }) {
  const base = `/v1/organizations/${encodeURIComponent(session.organization.id)}`;
  const exportPath = `${base}/logs/export`;
  const [filters, setFilters] = useState<Filters>({ period: '24h', from: '', to: '', keys: [], tags: '' });
  const [applied, setApplied] = useState<Filters>(filters);
  const [downloadError, setDownloadError] = useState<unknown>(null);
  const [downloaded, setDownloaded] = useState<string | null>(null);
  const keys = useLoad(() => api<ListBody<ApiKey>>('GET', `${base}/api_keys`), [base]);
  const preview = useLoad(
    () => previewRows(withQuery(exportPath, exportQuery(applied, 'json'))),
    [exportPath, applied],
  );
  const set = (patch: Partial<Filters>) => setFilters((current) => ({ ...current, ...patch }));

  if (preview.error instanceof ApiError && preview.error.routeMissing) {
    return (
      <section>
        <h1>Logs</h1>
        <Empty title="Log export is not available on this gateway">
          This server has no {exportPath} route yet; upgrade the gateway to export request logs.
        </Empty>
      </section>
    );
  }

  const save = async (format: 'csv' | 'json') => {
    setDownloadError(null);
    setDownloaded(null);
    try {
      const bytes = await download(withQuery(exportPath, exportQuery(applied, format)), `usage.${format}`);
      setDownloaded(`${format.toUpperCase()} downloaded (${formatInt(bytes)} bytes).`);
    } catch (failure) {
      setDownloadError(failure);
    }
  };

  return (
    <section>
      <header class="page-header">
        <div>
          <h1>Logs</h1>
          <p class="muted">
            One row per metered request, and per request refused with one of the organization's keys (its status and
            error code; refusals are kept for a limited time), oldest first. Filters apply to the table and to both
            downloads.
          </p>
        </div>
        <div class="controls">
          <button type="button" onClick={() => save('csv')} data-testid="download-csv">
            Download CSV
          </button>
          <button type="button" onClick={() => save('json')} data-testid="download-json">
            Download JSON
          </button>
        </div>
      </header>
      <form
        class="card filters"
        onSubmit={(event) => {
          event.preventDefault();
          setApplied(filters);
        }}
      >
        <label>
          Period
          <select
            name="period"
            value={filters.period}
            disabled={Boolean(filters.from || filters.to)}
            onChange={(e) => set({ period: e.currentTarget.value })}
          >
            {PERIODS.map((p) => (
              <option value={p}>Last {p}</option>
            ))}
          </select>
        </label>
        <label>
          From <span class="muted">(UTC, overrides period)</span>
          <input
            type="date"
            name="from_date"
            value={filters.from}
            onInput={(e) => set({ from: e.currentTarget.value })}
          />
        </label>
        <label>
          To <span class="muted">(inclusive)</span>
          <input type="date" name="to_date" value={filters.to} onInput={(e) => set({ to: e.currentTarget.value })} />
        </label>
        <label>
          API keys <span class="muted">(none selected: all)</span>
          <select
            name="api_key_id"
            multiple
            size={Math.min(4, Math.max(2, keys.data?.data.length ?? 2))}
            onChange={(e) => set({ keys: Array.from(e.currentTarget.selectedOptions, (o) => o.value) })}
          >
            {(keys.data?.data ?? []).map((key) => (
              <option value={key.id} selected={filters.keys.includes(key.id)}>
                {key.name}
              </option>
            ))}
          </select>
        </label>
        <label>
          Tags <span class="muted">(any of, comma-separated)</span>
          <input
            name="tags"
            value={filters.tags}
            onInput={(e) => set({ tags: e.currentTarget.value })}
            placeholder="e.g. checkout, batch"
          />
        </label>
        <div class="form-actions">
          <button class="primary" type="submit">
            Apply filters
          </button>
        </div>
      </form>
      <ErrorBanner error={downloadError} />
      {downloaded && <div class="banner info">{downloaded}</div>}
      <ErrorBanner error={preview.error} onRetry={preview.reload} />
      {preview.loading && <Loading what="logs" />}
      {!preview.loading && preview.data && preview.data.rows.length === 0 && (
        <Empty title="No requests match these filters">
          Widen the period or clear the key and tag filters. Requests show up here as soon as they are metered or
          refused.
        </Empty>
      )}
      {!preview.loading && preview.data && preview.data.rows.length > 0 && (
        <div class="table-wrap">
          <p class="muted small">
            {preview.data.complete
              ? `${formatInt(preview.data.rows.length)} requests.`
              : `The first ${PREVIEW_ROWS} requests; download the file for all of them.`}
          </p>
          <table data-testid="logs-table">
            <thead>
              <tr>
                <th>Time</th>
                <th>API key</th>
                <th>Model</th>
                <th>Provider</th>
                <th class="num">Input</th>
                <th class="num">Output</th>
                <th class="num">Cost (USD)</th>
                <th>Status</th>
                <th>Tags</th>
              </tr>
            </thead>
            <tbody>
              {preview.data.rows.map((row) => (
                <tr key={row.id}>
                  <td>{formatDate(row.timestamp)}</td>
                  <td>{row.api_key_name ?? row.api_key_id}</td>
                  <td>{row.model}</td>
                  <td>{row.provider}</td>
                  <td class="num">{formatInt(row.input_tokens)}</td>
                  <td class="num">{formatInt(row.output_tokens)}</td>
                  <td class="num mono">{row.cost}</td>
                  <td data-testid="log-status">
                    <span class={`badge ${row.status < 400 ? 'ok' : 'bad'}`}>{row.status}</span>
                    {row.error_code && <span class="mono small"> {row.error_code}</span>}
                  </td>
                  <td>{row.tags.join(', ')}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
