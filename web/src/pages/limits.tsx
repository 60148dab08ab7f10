import { useState } from 'preact/hooks';
import { api, orgBase, permissions, type Session } from '../api.js';
import { ConfirmDialog, Empty, ErrorBanner, Loading, useLoad } from '../components/ui.js';
import { FieldError, useAction } from '../components/form.js';
import { formatDate } from '../format.js';

/** A limit as GET /v1/organizations/{orgId}/limits lists it (docs/limits.md). */
interface Limit {
  id: string;
  subject_kind: 'key' | 'member' | 'group';
  subject_id: string;
  metric: 'spend' | 'requests' | 'tokens';
  window: 'daily' | 'monthly' | 'lifetime' | 'minute';
  amount: number;
  current: { window_start: string; window_end: string | null; spent_usd: number; reserved_usd: number } | null;
}

const WINDOWS: Record<Limit['metric'], Array<Limit['window']>> = {
  spend: ['daily', 'monthly', 'lifetime'],
  requests: ['minute'],
  tokens: ['minute'],
};

function describeAmount(limit: Limit): string {
  if (limit.metric === 'spend')
    return `$${limit.amount} ${limit.window === 'lifetime' ? 'in all' : `a ${limit.window === 'daily' ? 'day' : 'month'}`}`;
  return `${limit.amount} ${limit.metric} a minute`;
}

/** Spend limits by window and per-minute rates of keys, members and groups. */
export function LimitsPage({ session }: { session: Session }) {
  const { canWrite } = permissions(session);
  const base = orgBase(session);
  const list = useLoad(() => api<{ data: Limit[] }>('GET', `${base}/limits`).then((r) => r.data), [base]);
  const settings = useLoad(() => api<{ window_offset_minutes: number }>('GET', `${base}/limit_settings`), [base]);
  const [removing, setRemoving] = useState<Limit | null>(null);
  return (
    <section>
      <header class="page-header">
        <div>
          <h1>Limits</h1>
          <p class="muted">
            Spend per key, member or group over a day, a month or a lifetime, and requests or tokens per minute per key
            or member. A request that would pass a limit is refused with 429 and <code>Retry-After</code>.
            {settings.data &&
              ` Windows start at midnight UTC${settings.data.window_offset_minutes === 0 ? '' : `${settings.data.window_offset_minutes > 0 ? '+' : '−'}${Math.abs(settings.data.window_offset_minutes) / 60} h`}.`}
          </p>
        </div>
      </header>
      {canWrite && <SetLimitForm base={base} onSet={list.reload} />}
      <ErrorBanner error={list.error} onRetry={list.reload} />
      {list.loading && !list.data && <Loading what="limits" />}
      {list.data && list.data.length === 0 && (
        <Empty title="No limits yet">Keys are held only by their monthly ceiling.</Empty>
      )}
      {list.data && list.data.length > 0 && (
        <div class="table-wrap">
          <table data-testid="limits-table">
            <thead>
              <tr>
                <th>Applies to</th>
                <th>Limit</th>
                <th>This window</th>
                <th>
                  <span class="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {list.data.map((limit) => (
                <tr key={limit.id} data-testid="limit-row" data-limit-id={limit.id}>
                  <td>
                    <span class="badge">{limit.subject_kind}</span> <span class="mono small">{limit.subject_id}</span>
                  </td>
                  <td>{describeAmount(limit)}</td>
                  <td>
                    {limit.current ? (
                      <>
                        ${limit.current.spent_usd.toFixed(2)} spent
                        {limit.current.reserved_usd > 0 && `, $${limit.current.reserved_usd.toFixed(2)} in flight`}
                        <div class="muted small">
                          {limit.current.window_end ? `until ${formatDate(limit.current.window_end)}` : 'never resets'}
                        </div>
                      </>
                    ) : (
                      <span class="muted">per minute</span>
                    )}
                  </td>
                  <td class="actions">
                    {canWrite && (
                      <button type="button" class="danger" onClick={() => setRemoving(limit)}>
                        Remove
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {removing && (
        <ConfirmDialog
          title="Remove limit?"
          message={
            <>
              The {removing.subject_kind} is no longer held to {describeAmount(removing)}.
            </>
          }
          confirm="Remove limit"
          onConfirm={async () => {
            await api('DELETE', `${base}/limits/${encodeURIComponent(removing.id)}`);
            list.reload();
          }}
          onClose={() => setRemoving(null)}
        />
      )}
    </section>
  );
}

function SetLimitForm({ base, onSet }: { base: string; onSet: () => void }) {
  const [kind, setKind] = useState<Limit['subject_kind']>('key');
  const [subject, setSubject] = useState('');
  const [metric, setMetric] = useState<Limit['metric']>('spend');
  const [window, setWindow] = useState<Limit['window']>('daily');
  const [amount, setAmount] = useState('');
  const action = useAction();
  const windows = WINDOWS[metric];
  const submit = async (event: Event) => {
    event.preventDefault();
    let done = false;
    await action.run(async () => {
      await api('POST', `${base}/limits`, {
        subject_kind: kind,
        subject_id: subject.trim(),
        metric,
        window: windows.includes(window) ? window : windows[0],
        amount: Number(amount),
      });
      done = true;
    });
    if (done) {
      setAmount('');
      onSet();
    }
  };
  return (
    <form class="card form-grid" onSubmit={submit} data-testid="set-limit-form">
      <h2>Set a limit</h2>
      <label>
        Applies to
        <select
          name="subject_kind"
          value={kind}
          onChange={(e) => setKind(e.currentTarget.value as Limit['subject_kind'])}
        >
          <option value="key">an API key</option>
          <option value="member">a member</option>
          <option value="group">a group</option>
        </select>
        <FieldError error={action.error} param="subject_kind" />
      </label>
      <label>
        Its id
        <input
          name="subject_id"
          required
          maxLength={100}
          value={subject}
          onInput={(e) => setSubject(e.currentTarget.value)}
        />
        <FieldError error={action.error} param="subject_id" />
      </label>
      <label>
        What
        <select name="metric" value={metric} onChange={(e) => setMetric(e.currentTarget.value as Limit['metric'])}>
          <option value="spend">spend (USD)</option>
          <option value="requests">requests</option>
          <option value="tokens">tokens</option>
        </select>
      </label>
      <label>
        Window
        <select
          name="window"
          value={windows.includes(window) ? window : windows[0]}
          onChange={(e) => setWindow(e.currentTarget.value as Limit['window'])}
        >
          {windows.map((w) => (
            <option key={w} value={w}>
              {w}
            </option>
          ))}
        </select>
        <FieldError error={action.error} param="window" />
      </label>
      <label>
        Amount
        <input
          name="amount"
          type="number"
          required
          min={0}
          step="any"
          value={amount}
          onInput={(e) => setAmount(e.currentTarget.value)}
        />
        <FieldError error={action.error} param="amount" />
      </label>
      <div class="wide">
        <ErrorBanner error={action.error} />
      </div>
      <div class="wide form-actions">
        <button
          class="primary"
          type="submit"
          disabled={action.busy || subject.trim() === '' || amount === ''}
          data-testid="set-limit"
        >
          {action.busy ? 'Saving…' : 'Set limit'}
        </button>
      </div>
    </form>
  );
}
