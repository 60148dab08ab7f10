import { useState } from 'preact/hooks';
import {
  api,
  ApiError,
  orgBase,
  permissions,
  type ApiKey,
  type GatewayTool,
  type KeySpend,
  type ListBody,
  type Session,
} from '../../api.js';
import { ConfirmDialog, Empty, ErrorBanner, Loading, Modal, SecretBox, useLoad } from '../../components/ui.js';
import { useAction } from '../../components/form.js';
import { formatDate, formatUsd } from '../../format.js';
import { KeyFields, NEW_KEY, createBody, type KeyDraft } from './key-fields.js';
import { EditKeyDialog } from './edit-key-dialog.js';
import { accessOf } from './tool-access.js';

interface KeysData {
  keys: ApiKey[];
  spend: Map<string, KeySpend>;
  /** Undefined when the server has no gateway tool routes. */
  tools: GatewayTool[] | undefined;
}

export function KeysPage({ session }: { session: Session }) {
  const base = orgBase(session);
  const { canWrite } = permissions(session);
  const { data, error, loading, reload } = useLoad<KeysData>(async () => {
    const [keys, spend, tools] = await Promise.all([
      api<ListBody<ApiKey>>('GET', `${base}/api_keys`),
      api<ListBody<KeySpend>>('GET', `${base}/usage/keys`).catch(() => ({ object: 'list' as const, data: [] })),
      api<ListBody<GatewayTool>>('GET', `${base}/gateway_tools`).then(
        (list) => list.data,
        (failure: unknown) => {
          if (failure instanceof ApiError && failure.routeMissing) return undefined;
          throw failure;
        },
      ),
    ]);
    return { keys: keys.data, spend: new Map(spend.data.map((s) => [s.api_key_id, s])), tools };
  }, [base]);
  const [creating, setCreating] = useState(false);
  const [shown, setShown] = useState<{ key: ApiKey; fresh: boolean } | null>(null);
  const [editing, setEditing] = useState<ApiKey | null>(null);
  const [deleting, setDeleting] = useState<ApiKey | null>(null);
  const action = useAction();

  const toggle = (key: ApiKey) =>
    action.run(async () => {
      await api('POST', `${base}/api_keys/${key.id}`, { active: !key.active });
      reload();
    });
  const reveal = (key: ApiKey) =>
    action.run(async () => {
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
      {!canWrite && (
        <div class="banner info" data-testid="read-only">
          This console token is read-only: keys can be listed but not changed.
        </div>
      )}
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
      <ErrorBanner error={action.error} />
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
                <th>Options</th>
                <th>Created</th>
                <th>Expires</th>
                <th>Last used</th>
                <th>
                  <span class="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {data.keys.map((key) => {
                const spend = data.spend.get(key.id);
                const tools = (data.tools ?? []).filter((tool) => accessOf(tool, key.id).usable);
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
                    <td class="small" data-testid="key-options">
                      {key.debug_mode && <span class="badge">debug</span>}{' '}
                      {key.compression && <span class="badge">compression</span>}{' '}
                      {tools.length > 0 && (
                        <span class="badge" title={tools.map((t) => t.id).join(', ')}>
                          {tools.length} {tools.length === 1 ? 'tool' : 'tools'}
                        </span>
                      )}
                    </td>
                    <td>{formatDate(key.created_at, false)}</td>
                    <td>{formatDate(key.expires_at, false)}</td>
                    <td>{key.last_used_at ? formatDate(key.last_used_at) : <span class="muted">never</span>}</td>
                    <td class="actions">
                      {canWrite && (
                        <>
                          <button type="button" onClick={() => reveal(key)}>
                            Reveal
                          </button>
                          <button type="button" onClick={() => setEditing(key)}>
                            Edit
                          </button>
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
              users with a write token.
            </p>
          )}
          {shown.key.key ? (
            <SecretBox secret={shown.key.key} />
          ) : (
            <p class="muted">This key's secret cannot be revealed.</p>
          )}
        </Modal>
      )}
      {editing && data && (
        <EditKeyDialog
          base={base}
          apiKey={editing}
          tools={data.tools}
          allKeyIds={data.keys.map((k) => k.id)}
          onSaved={reload}
          onClose={() => setEditing(null)}
        />
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
  const [draft, setDraft] = useState<KeyDraft>(NEW_KEY);
  const create = useAction();
  const set = (patch: Partial<KeyDraft>) => setDraft((current) => ({ ...current, ...patch }));

  const submit = async (event: Event) => {
    event.preventDefault();
    let created: ApiKey | undefined;
    await create.run(async () => {
      created = await api<ApiKey>('POST', `${base}/api_keys`, createBody(draft));
    });
    if (created) onCreated(created);
  };

  return (
    <form class="card form-grid" onSubmit={submit} data-testid="create-key-form">
      <h2>New key</h2>
      <KeyFields draft={draft} set={set} error={create.error} />
      <div class="wide">
        <ErrorBanner error={create.error} />
      </div>
      <div class="wide form-actions">
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
        <button
          class="primary"
          type="submit"
          disabled={create.busy || draft.name.trim() === ''}
          data-testid="create-key"
        >
          {create.busy ? 'Creating…' : 'Create key'}
        </button>
      </div>
    </form>
  );
}
