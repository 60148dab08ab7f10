import { useState } from 'preact/hooks';
import { api, type ApiKey, type KeySpend, type ListBody, type Session } from '../api.js';
import { ConfirmDialog, Empty, ErrorBanner, Loading, Modal, SecretBox, useLoad } from '../components/ui.js';
import { formatDate, formatUsd } from '../format.js';

const ASSISTANTS = [
  ['claude_code', 'Claude Code'],
  ['codex', 'Codex'],
  ['opencode', 'opencode'],
] as const;

interface KeysData {
  keys: ApiKey[];
  spend: Map<string, KeySpend>;
}

export function KeysPage({ session }: { session: Session }) {
  const org = session.organization;
  const base = `/v1/organizations/${encodeURIComponent(org.id)}`;
  const canWrite = org.token.permission !== 'read';
  const { data, error, loading, reload } = useLoad<KeysData>(async () => {
    const [keys, spend] = await Promise.all([
      api<ListBody<ApiKey>>('GET', `${base}/api_keys`),
      api<ListBody<KeySpend>>('GET', `${base}/usage/keys`).catch(() => ({ object: 'list' as const, data: [] })),
    ]);
    return { keys: keys.data, spend: new Map(spend.data.map((s) => [s.api_key_id, s])) };
  }, [base]);
  const [creating, setCreating] = useState(false);
  const [shown, setShown] = useState<{ key: ApiKey; fresh: boolean } | null>(null);
  const [deleting, setDeleting] = useState<ApiKey | null>(null);
  const [actionError, setActionError] = useState<unknown>(null);

  const act = async (run: () => Promise<void>) => {
    setActionError(null);
    try {
      await run();
    } catch (failure) {
      setActionError(failure);
    }
  };
  const toggle = (key: ApiKey) =>
    act(async () => {
      await api('POST', `${base}/api_keys/${key.id}`, { active: !key.active });
      reload();
    });
  const reveal = (key: ApiKey) =>
    act(async () => {
      setShown({ key: await api<ApiKey>('GET', `${base}/api_keys/${key.id}/reveal`), fresh: false });
    });

  return (
    <section>
      <header class="page-header">
        <div>
          <h1>API keys</h1>
          <p class="muted">
            Keys call the gateway with <code>Authorization: Bearer &lt;key&gt;</code>. Spend is this month's, in UTC.
          </p>
        </div>
        {canWrite && !creating && (
          <button class="primary" type="button" onClick={() => setCreating(true)} data-testid="new-key">
            Create key
          </button>
        )}
      </header>
      {!canWrite && <div class="banner info">This console token is read-only: keys can be listed but not changed.</div>}
      {creating && (
        <CreateKeyForm
          base={base}
          onCancel={() => setCreating(false)}
          onCreated={(key) => {
            setCreating(false);
            setShown({ key, fresh: true });
            reload();
          }}
        />
      )}
      <ErrorBanner error={actionError} />
      <ErrorBanner error={error} onRetry={reload} />
      {loading && !data && <Loading what="keys" />}
      {data && data.keys.length === 0 && (
        <Empty title="No API keys yet">
          {canWrite
            ? 'Create one with "Create key", then send it to the gateway as a Bearer token.'
            : 'Ask someone with a write token to create one.'}
        </Empty>
      )}
      {data && data.keys.length > 0 && (
        <div class="table-wrap">
          <table data-testid="keys-table">
            <thead>
              <tr>
                <th>Name</th>
                <th>Type</th>
                <th>Models</th>
                <th class="num">Spend this month</th>
                <th>Status</th>
                <th>Created</th>
                <th>Expires</th>
                <th>Last used</th>
                <th aria-label="Actions" />
              </tr>
            </thead>
            <tbody>
              {data.keys.map((key) => {
                const spend = data.spend.get(key.id);
                return (
                  <tr key={key.id} data-testid="key-row" data-key-name={key.name}>
                    <td>
                      <div class="strong">{key.name}</div>
                      <div class="muted small mono">{key.id}</div>
                    </td>
                    <td>{key.type === 'coding_agent' ? `Coding agent · ${key.coding_assistant ?? ''}` : 'API'}</td>
                    <td class="models">
                      {key.models.length === 0 ? <span class="muted">All models</span> : key.models.join(', ')}
                    </td>
                    <td class="num">
                      {formatUsd(spend?.spent_usd ?? 0)}
                      <div class="muted small">{key.max_usage === null ? 'no ceiling' : `of $${key.max_usage}`}</div>
                    </td>
                    <td>
                      <span class={`badge ${key.active ? 'ok' : 'off'}`}>{key.active ? 'Active' : 'Inactive'}</span>
                    </td>
                    <td>{formatDate(key.created_at, false)}</td>
                    <td>{formatDate(key.expires_at, false)}</td>
                    <td>{key.last_used_at ? formatDate(key.last_used_at) : <span class="muted">never</span>}</td>
                    <td class="actions">
                      <button type="button" onClick={() => reveal(key)}>
                        Reveal
                      </button>
                      {canWrite && (
                        <>
                          <button type="button" onClick={() => toggle(key)}>
                            {key.active ? 'Deactivate' : 'Activate'}
                          </button>
                          <button type="button" class="danger" onClick={() => setDeleting(key)}>
                            Delete
                          </button>
                        </>
                      )}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
      {shown && (
        <Modal
          title={shown.fresh ? `Key "${shown.key.name}" created` : `Key "${shown.key.name}"`}
          onClose={() => setShown(null)}
        >
          {shown.fresh && (
            <p>
              Copy the key now and keep it somewhere safe. It is stored encrypted; "Reveal" shows it again to console
              users.
            </p>
          )}
          {shown.key.key ? (
            <SecretBox secret={shown.key.key} />
          ) : (
            <p class="muted">This key's secret cannot be revealed.</p>
          )}
        </Modal>
      )}
      {deleting && (
        <ConfirmDialog
          title="Delete key?"
          message={
            <>
              Requests with <strong>{deleting.name}</strong> will be refused at once. Its usage stays in reports. This
              cannot be undone.
            </>
          }
          confirm="Delete key"
          onConfirm={async () => {
            await api('DELETE', `${base}/api_keys/${deleting.id}`);
            reload();
          }}
          onClose={() => setDeleting(null)}
        />
      )}
    </section>
  );
}

function CreateKeyForm({
  base,
  onCreated,
  onCancel,
}: {
  base: string;
  onCreated: (key: ApiKey) => void;
  onCancel: () => void;
}) {
  const [name, setName] = useState('');
  const [type, setType] = useState<'api' | 'coding_agent'>('api');
  const [assistant, setAssistant] = useState<string>('claude_code');
  const [models, setModels] = useState('');
  const [ceiling, setCeiling] = useState('');
  const [expires, setExpires] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);

  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    const body: Record<string, unknown> = { name: name.trim(), type };
    if (type === 'coding_agent') body.coding_assistant = assistant;
    const modelList = models.split(/[\s,]+/).filter(Boolean);
    if (modelList.length > 0) body.models = modelList;
    if (ceiling !== '') body.max_usage = Number(ceiling);
    if (expires !== '') body.expires_in_days = Number(expires);
    try {
      onCreated(await api<ApiKey>('POST', `${base}/api_keys`, body));
    } catch (failure) {
      setError(failure);
      setBusy(false);
    }
  };

  return (
    <form class="card form-grid" onSubmit={submit} data-testid="create-key-form">
      <h2>New key</h2>
      <label>
        Name
        <input
          name="name"
          required
          maxLength={200}
          value={name}
          onInput={(e) => setName(e.currentTarget.value)}
          placeholder="e.g. backend production"
        />
      </label>
      <label>
        Type
        <select name="type" value={type} onChange={(e) => setType(e.currentTarget.value as 'api' | 'coding_agent')}>
          <option value="api">API</option>
          <option value="coding_agent">Coding agent</option>
        </select>
      </label>
      {type === 'coding_agent' && (
        <label>
          Coding assistant
          <select name="coding_assistant" value={assistant} onChange={(e) => setAssistant(e.currentTarget.value)}>
            {ASSISTANTS.map(([value, label]) => (
              <option value={value}>{label}</option>
            ))}
          </select>
        </label>
      )}
      <label class="wide">
        Models{' '}
        <span class="muted">
          (optional: ids such as openai/gpt-4o-mini, separated by commas; empty allows every model)
        </span>
        <input
          name="models"
          value={models}
          onInput={(e) => setModels(e.currentTarget.value)}
          placeholder="all models"
        />
      </label>
      <label>
        Monthly ceiling, USD <span class="muted">(optional)</span>
        <input
          name="max_usage"
          type="number"
          min={0}
          step={1}
          value={ceiling}
          onInput={(e) => setCeiling(e.currentTarget.value)}
          placeholder="no ceiling"
        />
      </label>
      <label>
        Expires in days <span class="muted">(optional)</span>
        <input
          name="expires_in_days"
          type="number"
          min={1}
          max={3650}
          step={1}
          value={expires}
          onInput={(e) => setExpires(e.currentTarget.value)}
          placeholder="never"
        />
      </label>
      <div class="wide">
        <ErrorBanner error={error} />
      </div>
      <div class="wide form-actions">
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
        <button class="primary" type="submit" disabled={busy || name.trim() === ''} data-testid="create-key">
          {busy ? 'Creating…' : 'Create key'}
        </button>
      </div>
    </form>
  );
}
