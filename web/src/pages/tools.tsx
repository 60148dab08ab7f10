import { useState } from 'preact/hooks';
import {
  api,
  ApiError,
  orgBase,
  permissions,
  type ApiKey,
  type GatewayTool,
  type ListBody,
  type Session,
} from '../api.js';
import { Empty, ErrorBanner, Loading, useLoad } from '../components/ui.js';
import { FieldError, useAction } from '../components/form.js';
import { formatDate } from '../format.js';

/**
 * The built-in gateway tools and their settings in this organization (docs/gateway-tools.md):
 * on or off, which keys may use each, and whether it is injected into requests that name none.
 */
export function ToolsPage({ session }: { session: Session }) {
  const base = orgBase(session);
  const { canWrite } = permissions(session);
  const data = useLoad(async () => {
    const [tools, keys] = await Promise.all([
      api<ListBody<GatewayTool>>('GET', `${base}/gateway_tools`),
      api<ListBody<ApiKey>>('GET', `${base}/api_keys`),
    ]);
    return { tools: tools.data, keys: keys.data };
  }, [base]);

  if (data.error instanceof ApiError && data.error.routeMissing) {
    return (
      <section>
        <h1>Gateway tools</h1>
        <Empty title="Gateway tools are not available on this gateway" />
      </section>
    );
  }
  return (
    <section>
      <header class="page-header">
        <div>
          <h1>Gateway tools</h1>
          <p class="muted">
            Tools the gateway runs itself when a model calls them. A tool does nothing until it is turned on; a request
            names tools with <code>gateway_tool_ids</code>, or gets the injected ones.
          </p>
        </div>
      </header>
      <ErrorBanner error={data.error} onRetry={data.reload} />
      {data.loading && !data.data && <Loading what="gateway tools" />}
      {data.data?.tools.map((tool) => (
        <ToolCard
          key={`${tool.id}-${tool.updated_at ?? ''}`}
          base={base}
          tool={tool}
          keys={data.data!.keys}
          canWrite={canWrite}
          onSaved={data.reload}
        />
      ))}
    </section>
  );
}

interface ToolDraft {
  active: boolean;
  everyKey: boolean;
  keyIds: string[];
  inject: 'no' | 'all' | 'some';
  hydrateKeyIds: string[];
}

function draftOf(tool: GatewayTool): ToolDraft {
  return {
    active: tool.active,
    everyKey: tool.active_key_ids === null,
    keyIds: tool.active_key_ids ?? [],
    inject: tool.hydrate ? 'all' : tool.hydrate_key_ids.length > 0 ? 'some' : 'no',
    hydrateKeyIds: tool.hydrate_key_ids,
  };
}

function ToolCard({
  base,
  tool,
  keys,
  canWrite,
  onSaved,
}: {
  base: string;
  tool: GatewayTool;
  keys: ApiKey[];
  canWrite: boolean;
  onSaved: () => void;
}) {
  const [draft, setDraft] = useState<ToolDraft>(() => draftOf(tool));
  const save = useAction();
  const set = (patch: Partial<ToolDraft>) => setDraft((current) => ({ ...current, ...patch }));
  const toggleIn = (list: string[], id: string, on: boolean) =>
    on ? [...new Set([...list, id])] : list.filter((k) => k !== id);

  const submit = async (event: Event) => {
    event.preventDefault();
    // A deleted key may linger in a saved list; the API accepts only live keys of the organization.
    const live = (ids: string[]) => ids.filter((keyId) => keys.some((key) => key.id === keyId));
    const saved = await save.run(async () => {
      await api('POST', `${base}/gateway_tools/${encodeURIComponent(tool.id)}`, {
        active: draft.active,
        active_key_ids: draft.everyKey ? null : live(draft.keyIds),
        hydrate: draft.inject === 'all',
        hydrate_key_ids: draft.inject === 'some' ? live(draft.hydrateKeyIds) : [],
      });
    });
    if (saved) onSaved();
  };
  const id = (suffix: string) => `${tool.id}-${suffix}`;

  return (
    <form class="card tool-card" onSubmit={submit} data-testid="tool-card" data-tool={tool.id}>
      <div class="tool-head">
        <div>
          <h2>
            <code>{tool.id}</code>{' '}
            <span class={`badge ${tool.active ? 'ok' : 'off'}`}>{tool.active ? 'On' : 'Off'}</span>
          </h2>
          <p class="muted">{tool.description}</p>
          <p class="muted small">
            Time limit {tool.timeout_ms} ms ·{' '}
            {tool.updated_at ? `changed ${formatDate(tool.updated_at)}` : 'never configured'}
          </p>
        </div>
        <details>
          <summary>Parameters</summary>
          <pre class="json">{JSON.stringify(tool.parameters, null, 2)}</pre>
        </details>
      </div>
      <fieldset disabled={!canWrite} class="tool-settings">
        <label class="check">
          <input
            type="checkbox"
            name="active"
            checked={draft.active}
            onChange={(e) => set({ active: e.currentTarget.checked })}
          />
          On for this organization
        </label>
        <fieldset>
          <legend>Keys that may use it</legend>
          <label class="check">
            <input type="radio" name={id('scope')} checked={draft.everyKey} onChange={() => set({ everyKey: true })} />
            Every key
          </label>
          <label class="check">
            <input
              type="radio"
              name={id('scope')}
              checked={!draft.everyKey}
              onChange={() => set({ everyKey: false })}
            />
            Only these keys
          </label>
          {!draft.everyKey && (
            <KeyChecklist
              keys={keys}
              chosen={draft.keyIds}
              label="may use"
              onChange={(keyId, on) => set({ keyIds: toggleIn(draft.keyIds, keyId, on) })}
            />
          )}
          <FieldError error={save.error} param="active_key_ids" />
        </fieldset>
        <fieldset>
          <legend>Inject automatically into requests that name no tools</legend>
          {(
            [
              ['no', 'No'],
              ['all', 'For every key that may use it'],
              ['some', 'For these keys'],
            ] as const
          ).map(([value, label]) => (
            <label class="check" key={value}>
              <input
                type="radio"
                name={id('inject')}
                checked={draft.inject === value}
                onChange={() => set({ inject: value })}
              />
              {label}
            </label>
          ))}
          {draft.inject === 'some' && (
            <KeyChecklist
              keys={keys}
              chosen={draft.hydrateKeyIds}
              label="injected"
              onChange={(keyId, on) => set({ hydrateKeyIds: toggleIn(draft.hydrateKeyIds, keyId, on) })}
            />
          )}
          <FieldError error={save.error} param="hydrate_key_ids" />
        </fieldset>
      </fieldset>
      <ErrorBanner error={save.error} />
      {canWrite && (
        <div class="form-actions">
          <button type="button" onClick={() => setDraft(draftOf(tool))} disabled={save.busy}>
            Reset
          </button>
          <button type="submit" class="primary" disabled={save.busy} data-testid="save-tool">
            {save.busy ? 'Saving…' : 'Save'}
          </button>
        </div>
      )}
    </form>
  );
}

function KeyChecklist({
  keys,
  chosen,
  label,
  onChange,
}: {
  keys: ApiKey[];
  chosen: string[];
  label: string;
  onChange: (keyId: string, on: boolean) => void;
}) {
  if (keys.length === 0) return <p class="muted small">No keys yet.</p>;
  return (
    <div class="checklist">
      {keys.map((key) => (
        <label class="check" key={key.id}>
          <input
            type="checkbox"
            checked={chosen.includes(key.id)}
            aria-label={`${key.name}: ${label}`}
            onChange={(e) => onChange(key.id, e.currentTarget.checked)}
          />
          {key.name}
        </label>
      ))}
    </div>
  );
}
