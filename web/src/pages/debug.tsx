import { useState } from 'preact/hooks';
import { api, orgBase, permissions, withQuery, type ApiKey, type ListBody, type Session } from '../api.js';
import { Empty, ErrorBanner, Loading, useLoad } from '../components/ui.js';
import { formatDate, formatInt } from '../format.js';
import { CaptureView } from './debug/capture-view.js';
import type { CaptureSetting, CaptureSummary } from './debug/capture-types.js';

const DURATIONS = [
  [15, '15 minutes'],
  [60, '1 hour'],
  [240, '4 hours'],
  [1440, '24 hours'],
] as const;
const PAGE = 50;

/** Start and stop capture for one key: its state, a duration, the buttons. */
function CaptureControls({ base, keyId, canWrite }: { base: string; keyId: string; canWrite: boolean }) {
  const path = `${base}/api_keys/${encodeURIComponent(keyId)}/debug_capture`;
  const state = useLoad(() => api<CaptureSetting>('GET', path), [path]);
  const [minutes, setMinutes] = useState(60);
  const [error, setError] = useState<unknown>(null);
  const change = async (method: 'PUT' | 'DELETE') => {
    setError(null);
    try {
      await api<CaptureSetting>(method, path, method === 'PUT' ? { duration_minutes: minutes } : undefined);
      state.reload();
    } catch (failure) {
      setError(failure);
    }
  };
  return (
    <div class="card filters" data-testid="capture-controls">
      <p data-testid="capture-state">
        {state.data?.capturing ? (
          <>
            <span class="badge ok">capturing</span> until {formatDate(state.data.until)}
          </>
        ) : (
          <span class="badge off">not capturing</span>
        )}
      </p>
      {canWrite && (
        <>
          <label>
            For
            <select name="duration" value={minutes} onChange={(e) => setMinutes(Number(e.currentTarget.value))}>
              {DURATIONS.map(([value, label]) => (
                <option key={value} value={value}>
                  {label}
                </option>
              ))}
            </select>
          </label>
          <div class="form-actions">
            <button class="primary" type="button" onClick={() => change('PUT')} data-testid="capture-start">
              {state.data?.capturing ? 'Extend capture' : 'Start capture'}
            </button>
            {state.data?.capturing && (
              <button type="button" onClick={() => change('DELETE')} data-testid="capture-stop">
                Stop capture
              </button>
            )}
          </div>
        </>
      )}
      <ErrorBanner error={error ?? state.error} />
    </div>
  );
}

/**
 * Debug capture (docs/debug-capture.md): a key's requests kept for a while as received, as sent
 * upstream and as answered, secrets redacted, with the diff of what compression changed.
 */
export function DebugPage({ session }: { session: Session }) {
  const base = orgBase(session);
  const { canWrite } = permissions(session);
  const keys = useLoad(() => api<ListBody<ApiKey>>('GET', `${base}/api_keys`), [base]);
  const [keyId, setKeyId] = useState('');
  const [morePages, setMorePages] = useState(0);
  const [selected, setSelected] = useState<string | null>(null);
  const captures = useLoad(async () => {
    const rows: CaptureSummary[] = [];
    let after: string | undefined;
    let more = false;
    // The first page, then one more per "Load more" (each from the previous page's last id).
    for (let i = 0; i <= morePages; i++) {
      const page = await api<ListBody<CaptureSummary>>(
        'GET',
        withQuery(`${base}/debug_captures`, { api_key_id: keyId || undefined, limit: PAGE, starting_after: after }),
      );
      rows.push(...page.data);
      after = page.last_key ?? undefined;
      more = page.has_more === true;
      if (!more) break;
    }
    return { rows, more };
  }, [base, keyId, morePages]);
  const keyName = new Map((keys.data?.data ?? []).map((key) => [key.id, key.name]));

  return (
    <section>
      <header class="page-header">
        <div>
          <h1>Debug capture</h1>
          <p class="muted">
            For a key, for up to a day: each request as received, as sent upstream after compression, and its answer,
            with credentials redacted and each part cut at the size cap. Captures are deleted after the retention
            period. Use it to see what compression changed.
          </p>
        </div>
        <div class="controls">
          <button type="button" onClick={captures.reload}>
            Refresh
          </button>
        </div>
      </header>
      <ErrorBanner error={keys.error} onRetry={keys.reload} />
      <label>
        API key{' '}
        <select
          name="api_key_id"
          value={keyId}
          onChange={(e) => {
            setKeyId(e.currentTarget.value);
            setMorePages(0);
            setSelected(null);
          }}
        >
          <option value="">All keys</option>
          {(keys.data?.data ?? []).map((key) => (
            <option key={key.id} value={key.id}>
              {key.name}
            </option>
          ))}
        </select>
      </label>
      {keyId && <CaptureControls base={base} keyId={keyId} canWrite={canWrite} />}
      {selected && canWrite && <CaptureView base={base} id={selected} onClose={() => setSelected(null)} />}
      <ErrorBanner error={captures.error} onRetry={captures.reload} />
      {captures.loading && <Loading what="captures" />}
      {!captures.loading && captures.data && captures.data.rows.length === 0 && (
        <Empty title="No captures">
          {keyId
            ? 'Start capture for this key, then send a request with it.'
            : 'Pick a key and start capture, then send a request with it.'}
        </Empty>
      )}
      {captures.data && captures.data.rows.length > 0 && (
        <div class="table-wrap">
          {!canWrite && <p class="muted small">A read-only token lists captures; opening one needs a write token.</p>}
          <table data-testid="captures-table">
            <thead>
              <tr>
                <th>Time</th>
                <th>API key</th>
                <th>Endpoint</th>
                <th>Model</th>
                <th>Status</th>
                <th class="num">Stored</th>
                <th />
              </tr>
            </thead>
            <tbody>
              {captures.data.rows.map((row) => (
                <tr key={row.id} class={selected === row.id ? 'selected' : ''}>
                  <td>{formatDate(row.created_at)}</td>
                  <td>{keyName.get(row.api_key_id) ?? row.api_key_id}</td>
                  <td class="mono">{row.endpoint}</td>
                  <td>{row.model ?? '—'}</td>
                  <td>
                    <span class={`badge ${row.status_code < 400 ? 'ok' : 'bad'}`}>{row.status_code}</span>
                  </td>
                  <td class="num">{formatInt(row.bytes)} B</td>
                  <td>
                    {canWrite && (
                      <button type="button" class="link" onClick={() => setSelected(row.id)} data-testid="capture-open">
                        View
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          {captures.data.more && (
            <button type="button" onClick={() => setMorePages((n) => n + 1)}>
              Load more
            </button>
          )}
        </div>
      )}
    </section>
  );
}
