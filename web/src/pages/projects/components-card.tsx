import { useState } from 'preact/hooks';
import { api, withQuery, type ListBody } from '../../api.js';
import { ConfirmDialog, Empty, ErrorBanner, Loading, useLoad } from '../../components/ui.js';
import { FieldError, useAction } from '../../components/form.js';
import { SettingsForm } from '../../components/settings-form.js';
import type { Component, ProjectComponent } from './types.js';

/** Every public component (the catalogue is small: a few pages of 100 at most). */
async function catalogue(query: { category?: string; subcategory?: string } = {}): Promise<Component[]> {
  const all: Component[] = [];
  let after: string | undefined;
  for (let page = 0; page < 20; page++) {
    const body = await api<ListBody<Component>>(
      'GET',
      withQuery('/v1/components', { ...query, limit: 100, starting_after: after }),
    );
    all.push(...body.data);
    if (!body.has_more || !body.last_key) break;
    after = body.last_key;
  }
  return all;
}

const label = (text: string) => text.replace(/_/g, ' ');

/**
 * A project's components (spec 2.11): what is attached, with which version and settings; add
 * one from the public catalogue (browsed by category and subcategory), change it, remove it.
 */
export function ComponentsCard({ path, canWrite }: { path: string; canWrite: boolean }) {
  const attached = useLoad(() => api<ListBody<ProjectComponent>>('GET', `${path}/components`), [path]);
  const everything = useLoad(() => catalogue(), []);
  const [adding, setAdding] = useState(false);
  const [editing, setEditing] = useState<ProjectComponent | null>(null);
  const [removing, setRemoving] = useState<ProjectComponent | null>(null);
  const byId = new Map((everything.data ?? []).map((c) => [c.id, c]));
  const changed = () => {
    setAdding(false);
    setEditing(null);
    attached.reload();
  };

  return (
    <div class="card" data-testid="components-card">
      <div class="card-head">
        <h2>Components</h2>
        {canWrite && !adding && (
          <button type="button" onClick={() => setAdding(true)} data-testid="add-component">
            Add component
          </button>
        )}
      </div>
      <ErrorBanner error={attached.error} onRetry={attached.reload} />
      <ErrorBanner error={everything.error} onRetry={everything.reload} />
      {adding && everything.data && (
        <ComponentPicker path={path} all={everything.data} onAdded={changed} onCancel={() => setAdding(false)} />
      )}
      {attached.loading && !attached.data && <Loading what="components" />}
      {attached.data && attached.data.data.length === 0 && !adding && (
        <Empty title="No components">
          {canWrite ? 'Add one from the catalogue with "Add component".' : 'No component is attached.'}
        </Empty>
      )}
      {attached.data && attached.data.data.length > 0 && (
        <table data-testid="components-table">
          <thead>
            <tr>
              <th>Component</th>
              <th>Version</th>
              <th>Category</th>
              <th>Settings</th>
              <th>Status</th>
              <th>
                <span class="sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {attached.data.data.map((pc) => (
              <tr key={pc.id} data-testid="component-row" data-component={pc.component_slug ?? ''}>
                <td>
                  <div class="strong">{byId.get(pc.component_id)?.name ?? pc.component_slug ?? 'unknown'}</div>
                  <div class="muted small mono">{pc.component_slug}</div>
                </td>
                <td>{pc.component_version}</td>
                <td>
                  {[pc.category, pc.subcategory]
                    .filter(Boolean)
                    .map((c) => label(c!))
                    .join(' / ') || '—'}
                </td>
                <td class="mono small clip">{pc.settings ? JSON.stringify(pc.settings) : '—'}</td>
                <td>
                  <span class={`badge ${pc.active ? 'ok' : 'off'}`}>{pc.active ? 'Active' : 'Inactive'}</span>
                </td>
                <td class="actions">
                  {canWrite && (
                    <>
                      <button type="button" onClick={() => setEditing(pc)} disabled={!byId.has(pc.component_id)}>
                        Edit
                      </button>
                      <button type="button" class="danger" onClick={() => setRemoving(pc)}>
                        Remove
                      </button>
                    </>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {editing && byId.get(editing.component_id) && (
        <ComponentForm
          component={byId.get(editing.component_id)!}
          initial={editing}
          onCancel={() => setEditing(null)}
          onSubmit={async (body) => {
            await api('POST', `${path}/components/${encodeURIComponent(editing.id)}`, body);
            changed();
          }}
        />
      )}
      {removing && (
        <ConfirmDialog
          title="Remove component?"
          message={
            <>
              <strong>{removing.component_slug}</strong> stops receiving this project's events, and its undelivered
              events are dropped.
            </>
          }
          confirm="Remove component"
          onConfirm={async () => {
            await api('DELETE', `${path}/components/${encodeURIComponent(removing.id)}`);
            attached.reload();
          }}
          onClose={() => setRemoving(null)}
        />
      )}
    </div>
  );
}

/** The catalogue, filtered by the API on category and subcategory, then the chosen one's form. */
function ComponentPicker({
  path,
  all,
  onAdded,
  onCancel,
}: {
  path: string;
  all: Component[];
  onAdded: () => void;
  onCancel: () => void;
}) {
  const [category, setCategory] = useState('');
  const [subcategory, setSubcategory] = useState('');
  const [chosen, setChosen] = useState<Component | null>(null);
  const filtered = useLoad(
    () =>
      catalogue({
        ...(category ? { category } : {}),
        ...(subcategory ? { subcategory } : {}),
      }),
    [category, subcategory],
  );
  const categories = [...new Set(all.map((c) => c.category))].sort();
  const subcategories = [
    ...new Set(all.filter((c) => !category || c.category === category).map((c) => c.subcategory)),
  ].sort();

  if (chosen) {
    return (
      <ComponentForm
        component={chosen}
        onCancel={() => setChosen(null)}
        onSubmit={async (body) => {
          await api('POST', `${path}/components`, { component_id: chosen.id, ...body });
          onAdded();
        }}
      />
    );
  }
  return (
    <div class="picker" data-testid="component-picker">
      <div class="controls">
        <label>
          Category
          <select
            name="category"
            value={category}
            onChange={(e) => {
              setCategory(e.currentTarget.value);
              setSubcategory('');
            }}
          >
            <option value="">All categories</option>
            {categories.map((c) => (
              <option value={c}>{label(c)}</option>
            ))}
          </select>
        </label>
        <label>
          Subcategory
          <select name="subcategory" value={subcategory} onChange={(e) => setSubcategory(e.currentTarget.value)}>
            <option value="">All subcategories</option>
            {subcategories.map((c) => (
              <option value={c}>{label(c)}</option>
            ))}
          </select>
        </label>
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
      </div>
      <ErrorBanner error={filtered.error} onRetry={filtered.reload} />
      {filtered.loading && <Loading what="components" />}
      {!filtered.loading && filtered.data?.length === 0 && <Empty title="No component in this category" />}
      <ul class="catalogue" aria-label="Components">
        {!filtered.loading &&
          filtered.data?.map((component) => (
            <li key={component.id} class="catalogue-item" data-testid="catalogue-item" data-slug={component.slug}>
              <div>
                <div class="strong">
                  {component.name} <span class="muted small">v{component.latest_version}</span>
                </div>
                <div class="muted small">
                  {label(component.category)} / {label(component.subcategory)}
                </div>
                <p class="small">{component.description}</p>
              </div>
              <button
                type="button"
                class="primary"
                disabled={component.is_archived}
                onClick={() => setChosen(component)}
                aria-label={`Choose ${component.name}`}
              >
                Choose
              </button>
            </li>
          ))}
      </ul>
    </div>
  );
}

/** Version, on/off and settings of a component, for adding it or changing it. */
function ComponentForm({
  component,
  initial,
  onSubmit,
  onCancel,
}: {
  component: Component;
  initial?: ProjectComponent;
  onSubmit: (body: { component_version: string; active: boolean; settings: Record<string, unknown> }) => Promise<void>;
  onCancel: () => void;
}) {
  const versions = Object.keys(component.versions);
  const [version, setVersion] = useState(initial?.component_version ?? component.latest_version);
  const [active, setActive] = useState(initial?.active ?? true);
  const [settings, setSettings] = useState<Record<string, unknown>>(initial?.settings ?? {});
  const save = useAction();
  const schema = component.versions[version]?.settings_schema ?? {};
  const submit = async (event: Event) => {
    event.preventDefault();
    await save.run(() => onSubmit({ component_version: version, active, settings }));
  };
  return (
    <form class="component-form" onSubmit={submit} data-testid="component-form">
      <h3>
        {initial ? 'Change' : 'Add'} {component.name}
      </h3>
      <p class="muted small">{component.description}</p>
      <div class="form-grid">
        <label>
          Version
          <select name="component_version" value={version} onChange={(e) => setVersion(e.currentTarget.value)}>
            {versions.map((v) => (
              <option value={v}>
                {v}
                {v === component.latest_version ? ' (latest)' : ''}
              </option>
            ))}
          </select>
          <FieldError error={save.error} param="component_version" />
        </label>
        <label class="check">
          <input type="checkbox" name="active" checked={active} onChange={(e) => setActive(e.currentTarget.checked)} />
          Active <span class="muted">(receives events)</span>
        </label>
      </div>
      <fieldset>
        <legend>Settings</legend>
        <SettingsForm schema={schema} value={settings} onChange={setSettings} error={save.error} />
        <FieldError error={save.error} param="settings" exact />
      </fieldset>
      <ErrorBanner error={save.error} />
      <div class="form-actions">
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
        <button type="submit" class="primary" disabled={save.busy} data-testid="save-component">
          {save.busy ? 'Saving…' : initial ? 'Save' : 'Add component'}
        </button>
      </div>
    </form>
  );
}
