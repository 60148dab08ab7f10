import { useState } from 'preact/hooks';
import { api, permissions, withQuery, type ApiToken, type ListBody, type Session } from '../api.js';
import { ConfirmDialog, Empty, ErrorBanner, Loading, Modal, SecretBox, useLoad } from '../components/ui.js';
import { FieldError, useAction } from '../components/form.js';
import { formatDate } from '../format.js';

const PAGE = 100;

/** Console tokens of the organization (`/v1/api_tokens`): admin tokens only, as the API requires. */
export function TokensPage({ session }: { session: Session }) {
  const { isAdmin } = permissions(session);
  return (
    <section>
      <header class="page-header">
        <div>
          <h1>API tokens</h1>
          <p class="muted">
            Console tokens sign in here and call the console API. A <strong>read</strong> token sees everything and
            changes nothing; a <strong>write</strong> token changes everything except tokens. The secret is shown once.
          </p>
        </div>
      </header>
      {isAdmin ? (
        <TokenList session={session} />
      ) : (
        <Empty title="Managing API tokens needs an admin token">
          This tab is signed in with a {session.organization.token.permission} token. Sign in with the token printed by{' '}
          <code>bin/gateway admin bootstrap</code> to create or revoke tokens.
        </Empty>
      )}
    </section>
  );
}

/** Every page of the list, oldest first (an organization has few tokens; 100 per request). */
async function allTokens(): Promise<ApiToken[]> {
  const tokens: ApiToken[] = [];
  let after: string | undefined;
  for (;;) {
    const page = await api<ListBody<ApiToken>>(
      'GET',
      withQuery('/v1/api_tokens', { limit: PAGE, starting_after: after }),
    );
    tokens.push(...page.data);
    if (!page.has_more || !page.last_key) return tokens;
    after = page.last_key;
  }
}

function TokenList({ session }: { session: Session }) {
  const list = useLoad(allTokens, []);
  const [creating, setCreating] = useState(false);
  const [created, setCreated] = useState<ApiToken | null>(null);
  const [revoking, setRevoking] = useState<ApiToken | null>(null);
  const ownId = session.organization.token.id;

  return (
    <>
      {!creating && (
        <div class="toolbar">
          <button class="primary" type="button" onClick={() => setCreating(true)} data-testid="new-token">
            Create token
          </button>
        </div>
      )}
      {creating && (
        <CreateTokenForm
          onCancel={() => setCreating(false)}
          onCreated={(token) => {
            setCreating(false);
            setCreated(token);
            list.reload();
          }}
        />
      )}
      <ErrorBanner error={list.error} onRetry={list.reload} />
      {list.loading && !list.data && <Loading what="tokens" />}
      {list.data && (
        <div class="table-wrap">
          <table data-testid="tokens-table">
            <thead>
              <tr>
                <th>Name</th>
                <th>Permission</th>
                <th>Created</th>
                <th>Expires</th>
                <th>
                  <span class="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {list.data.map((token) => (
                <tr key={token.id} data-testid="token-row" data-token-name={token.name}>
                  <td>
                    <div class="strong">
                      {token.name} {token.id === ownId && <span class="badge">this tab</span>}
                    </div>
                    <div class="muted small mono">{token.id}</div>
                  </td>
                  <td>
                    <span class="badge">{token.permission}</span>
                  </td>
                  <td>{formatDate(token.created_at)}</td>
                  <td>{token.expires_at ? formatDate(token.expires_at) : <span class="muted">never</span>}</td>
                  <td class="actions">
                    <button type="button" class="danger" onClick={() => setRevoking(token)}>
                      Revoke
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {created?.token && (
        <Modal title={`Token "${created.name}" created`} onClose={() => setCreated(null)}>
          <p>
            Copy the token now: this is the only time it is shown. The server keeps only a digest of it and cannot show
            it again.
          </p>
          <SecretBox secret={created.token} />
        </Modal>
      )}
      {revoking && (
        <ConfirmDialog
          title="Revoke token?"
          message={
            <>
              <strong>{revoking.name}</strong> ({revoking.permission}) stops working at once, in every tab and script
              that uses it.
              {revoking.id === ownId && ' It is the token of this tab: you will be signed out.'}
            </>
          }
          confirm="Revoke token"
          onConfirm={async () => {
            await api('DELETE', `/v1/api_tokens/${encodeURIComponent(revoking.id)}`);
            // Revoking this tab's own token signs it out on this reload (the API answers 401).
            list.reload();
          }}
          onClose={() => setRevoking(null)}
        />
      )}
    </>
  );
}

function CreateTokenForm({ onCreated, onCancel }: { onCreated: (token: ApiToken) => void; onCancel: () => void }) {
  const [name, setName] = useState('');
  const [permission, setPermission] = useState<'read' | 'write'>('read');
  const [days, setDays] = useState('');
  const create = useAction();
  const submit = async (event: Event) => {
    event.preventDefault();
    let token: ApiToken | undefined;
    await create.run(async () => {
      token = await api<ApiToken>('POST', '/v1/api_tokens', {
        name: name.trim(),
        permission,
        ...(days !== '' ? { expires_in_days: Number(days) } : {}),
      });
    });
    if (token) onCreated(token);
  };
  return (
    <form class="card form-grid" onSubmit={submit} data-testid="create-token-form">
      <h2>New token</h2>
      <label>
        Name
        <input
          name="name"
          required
          maxLength={200}
          value={name}
          onInput={(e) => setName(e.currentTarget.value)}
          placeholder="e.g. CI reader"
        />
        <FieldError error={create.error} param="name" />
      </label>
      <label>
        Permission
        <select
          name="permission"
          value={permission}
          onChange={(e) => setPermission(e.currentTarget.value as 'read' | 'write')}
        >
          <option value="read">read: sees everything, changes nothing</option>
          <option value="write">write: changes everything except tokens</option>
        </select>
        <FieldError error={create.error} param="permission" />
      </label>
      <label>
        Expires in days <span class="muted">(optional)</span>
        <input
          name="expires_in_days"
          type="number"
          min={1}
          max={3650}
          step={1}
          value={days}
          onInput={(e) => setDays(e.currentTarget.value)}
          placeholder="never"
        />
        <FieldError error={create.error} param="expires_in_days" />
      </label>
      <div class="wide">
        <ErrorBanner error={create.error} />
      </div>
      <div class="wide form-actions">
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
        <button class="primary" type="submit" disabled={create.busy || name.trim() === ''} data-testid="create-token">
          {create.busy ? 'Creating…' : 'Create token'}
        </button>
      </div>
    </form>
  );
}
