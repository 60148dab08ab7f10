import { useState } from 'preact/hooks';
import { api, ApiError, orgBase, permissions, type Session } from '../api.js';
import { ConfirmDialog, Empty, ErrorBanner, Loading, Modal, useLoad } from '../components/ui.js';
import { FieldError, splitList, useAction } from '../components/form.js';
import { formatDate } from '../format.js';

/** A stored provider key as the console API shows it: a hint, never the key. */
interface ProviderKey {
  id: string;
  provider: string;
  key_hint: string;
  created_at: string;
  updated_at: string;
}

interface ProviderKeyList {
  data: ProviderKey[];
  available_providers: Array<{ id: string; kind: string }>;
}

interface AllowLists {
  models: string[] | null;
  providers: string[] | null;
  updated_at: string | null;
}

/**
 * The organization's own provider keys (BYOK: used for its traffic before the operator's) and its
 * model and provider allow-lists (docs/byok.md). A key is typed once and never shown again.
 */
export function ProviderKeysPage({ session }: { session: Session }) {
  const base = orgBase(session);
  const { canWrite } = permissions(session);
  const data = useLoad(async () => {
    const [keys, lists] = await Promise.all([
      api<ProviderKeyList>('GET', `${base}/provider_keys`),
      api<AllowLists>('GET', `${base}/allow_lists`),
    ]);
    return { keys, lists };
  }, [base]);

  if (data.error instanceof ApiError && data.error.routeMissing) {
    return (
      <section>
        <h1>Provider keys</h1>
        <Empty title="Provider keys are not available on this gateway" />
      </section>
    );
  }
  return (
    <section>
      <header class="page-header">
        <div>
          <h1>Provider keys</h1>
          <p class="muted">
            Your organization's own keys for the providers behind the gateway. Its requests to a provider use its own
            key instead of the gateway's. A key is stored encrypted and never shown again: only its last characters.
          </p>
        </div>
      </header>
      <ErrorBanner error={data.error} onRetry={data.reload} />
      {data.loading && !data.data && <Loading what="provider keys" />}
      {data.data && (
        <>
          <KeyTable base={base} list={data.data.keys} canWrite={canWrite} onChanged={data.reload} />
          <AllowListsForm
            key={data.data.lists.updated_at ?? 'none'}
            base={base}
            lists={data.data.lists}
            canWrite={canWrite}
            onSaved={data.reload}
          />
        </>
      )}
    </section>
  );
}

function KeyTable(props: { base: string; list: ProviderKeyList; canWrite: boolean; onChanged: () => void }) {
  const { base, list, canWrite, onChanged } = props;
  const [rotating, setRotating] = useState<ProviderKey | null>(null);
  const [removing, setRemoving] = useState<ProviderKey | null>(null);
  const held = new Set(list.data.map((key) => key.provider));
  const addable = list.available_providers.filter((provider) => !held.has(provider.id));
  return (
    <>
      {canWrite && addable.length > 0 && (
        // Keyed by what can be added, so the choice resets when the provider chosen gets its key.
        <AddKeyForm key={addable.map((p) => p.id).join()} base={base} providers={addable} onAdded={onChanged} />
      )}
      {list.data.length === 0 ? (
        <Empty title="No provider keys">Every request of this organization uses the gateway's keys.</Empty>
      ) : (
        <div class="table-wrap">
          <table data-testid="provider-keys-table">
            <thead>
              <tr>
                <th>Provider</th>
                <th>Key</th>
                <th>Added</th>
                <th>Last replaced</th>
                <th>
                  <span class="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {list.data.map((key) => (
                <tr key={key.id} data-testid="provider-key-row" data-provider={key.provider}>
                  <td class="strong">{key.provider}</td>
                  <td class="mono">{key.key_hint}</td>
                  <td>{formatDate(key.created_at)}</td>
                  <td>{formatDate(key.updated_at)}</td>
                  <td class="actions">
                    {canWrite && (
                      <>
                        <button type="button" onClick={() => setRotating(key)}>
                          Replace
                        </button>
                        <button type="button" class="danger" onClick={() => setRemoving(key)}>
                          Remove
                        </button>
                      </>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {rotating && (
        <RotateDialog
          base={base}
          keyInfo={rotating}
          onClose={() => setRotating(null)}
          onRotated={() => {
            setRotating(null);
            onChanged();
          }}
        />
      )}
      {removing && (
        <ConfirmDialog
          title="Remove provider key?"
          message={
            <>
              Requests to <strong>{removing.provider}</strong> use the gateway's key again from the next request on.
            </>
          }
          confirm="Remove key"
          onConfirm={async () => {
            await api('DELETE', `${base}/provider_keys/${encodeURIComponent(removing.provider)}`);
            onChanged();
          }}
          onClose={() => setRemoving(null)}
        />
      )}
    </>
  );
}

function AddKeyForm(props: { base: string; providers: Array<{ id: string; kind: string }>; onAdded: () => void }) {
  const [provider, setProvider] = useState(props.providers[0]!.id);
  const [secret, setSecret] = useState('');
  const add = useAction();
  const submit = async (event: Event) => {
    event.preventDefault();
    const done = await add.run(async () => {
      await api('POST', `${props.base}/provider_keys`, { provider, key: secret.trim() });
    });
    if (done) {
      setSecret('');
      props.onAdded();
    }
  };
  return (
    <form class="card form-grid" onSubmit={submit} data-testid="add-provider-key-form">
      <h2>Add a key</h2>
      <label>
        Provider
        <select name="provider" value={provider} onChange={(e) => setProvider(e.currentTarget.value)}>
          {props.providers.map((p) => (
            <option key={p.id} value={p.id}>
              {p.id} ({p.kind})
            </option>
          ))}
        </select>
        <FieldError error={add.error} param="provider" />
      </label>
      <label>
        Key
        <input
          name="key"
          type="password"
          autoComplete="off"
          required
          minLength={8}
          maxLength={4096}
          value={secret}
          onInput={(e) => setSecret(e.currentTarget.value)}
        />
        <FieldError error={add.error} param="key" />
      </label>
      <div class="wide">
        <ErrorBanner error={add.error} />
      </div>
      <div class="wide form-actions">
        <button
          class="primary"
          type="submit"
          disabled={add.busy || secret.trim() === ''}
          data-testid="add-provider-key"
        >
          {add.busy ? 'Adding…' : 'Add key'}
        </button>
      </div>
    </form>
  );
}

function RotateDialog(props: { base: string; keyInfo: ProviderKey; onClose: () => void; onRotated: () => void }) {
  const [secret, setSecret] = useState('');
  const rotate = useAction();
  const save = async () => {
    const done = await rotate.run(async () => {
      await api('PUT', `${props.base}/provider_keys/${encodeURIComponent(props.keyInfo.provider)}`, {
        key: secret.trim(),
      });
    });
    if (done) props.onRotated();
  };
  return (
    <Modal
      title={`Replace the ${props.keyInfo.provider} key`}
      onClose={props.onClose}
      footer={
        <>
          <button type="button" onClick={props.onClose}>
            Cancel
          </button>
          <button class="primary" type="button" disabled={rotate.busy || secret.trim() === ''} onClick={save}>
            {rotate.busy ? 'Saving…' : 'Replace key'}
          </button>
        </>
      }
    >
      <p>The new key is used from the next request on; the old one ({props.keyInfo.key_hint}) is forgotten.</p>
      <label>
        New key
        <input
          name="key"
          type="password"
          autoComplete="off"
          value={secret}
          onInput={(e) => setSecret(e.currentTarget.value)}
        />
      </label>
      <FieldError error={rotate.error} param="key" />
      <ErrorBanner error={rotate.error} />
    </Modal>
  );
}

/** One allow-list: off (null, everything allowed) or the entries typed, one per line or comma. */
function useListField(initial: string[] | null) {
  const [restricted, setRestricted] = useState(initial !== null);
  const [text, setText] = useState((initial ?? []).join('\n'));
  return { restricted, setRestricted, text, setText, value: () => (restricted ? splitList(text) : null) };
}

function AllowListsForm(props: { base: string; lists: AllowLists; canWrite: boolean; onSaved: () => void }) {
  const models = useListField(props.lists.models);
  const providers = useListField(props.lists.providers);
  const save = useAction();
  const submit = async (event: Event) => {
    event.preventDefault();
    const done = await save.run(async () => {
      await api('PUT', `${props.base}/allow_lists`, { models: models.value(), providers: providers.value() });
    });
    if (done) props.onSaved();
  };
  const fields = [
    { name: 'models', label: 'Only these models', hint: 'author/model, one per line', field: models },
    { name: 'providers', label: 'Only these providers', hint: 'provider ids, one per line', field: providers },
  ] as const;
  return (
    <form class="card form-grid" onSubmit={submit} data-testid="allow-lists-form">
      <h2>Allow-lists</h2>
      <p class="wide muted">
        Requests for a model or through a provider not on a list are refused with 403. Unchecked: no restriction.
      </p>
      {fields.map(({ name, label, hint, field }) => (
        <div key={name}>
          <label class="check">
            <input
              type="checkbox"
              name={`restrict-${name}`}
              checked={field.restricted}
              disabled={!props.canWrite}
              onChange={(e) => field.setRestricted(e.currentTarget.checked)}
            />
            {label}
          </label>
          <textarea
            name={name}
            aria-label={label}
            rows={4}
            disabled={!props.canWrite || !field.restricted}
            value={field.text}
            placeholder={hint}
            onInput={(e) => field.setText(e.currentTarget.value)}
          />
          <FieldError error={save.error} param={name} />
        </div>
      ))}
      <div class="wide">
        <ErrorBanner error={save.error} />
      </div>
      {props.canWrite && (
        <div class="wide form-actions">
          <button class="primary" type="submit" disabled={save.busy} data-testid="save-allow-lists">
            {save.busy ? 'Saving…' : 'Save allow-lists'}
          </button>
        </div>
      )}
    </form>
  );
}
