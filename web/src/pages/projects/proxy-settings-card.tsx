import { Fragment } from 'preact';
import { useState } from 'preact/hooks';
import { api, type ListBody } from '../../api.js';
import { Empty, ErrorBanner, Loading, useLoad } from '../../components/ui.js';
import { useAction } from '../../components/form.js';
import { ProxyEditor } from './proxy-editor.js';
import type { ProxySettings } from './types.js';

/**
 * Proxy settings revisions (spec 2.10): every revision, newest first; at most one is active.
 * A revision's backends and routes never change: a change is a new revision (the editor), and
 * going back is activating an older one.
 */
export function ProxySettingsCard({ path, canWrite }: { path: string; canWrite: boolean }) {
  const revisions = useLoad(() => api<ListBody<ProxySettings>>('GET', `${path}/proxy-settings/revisions`), [path]);
  const [editingFrom, setEditingFrom] = useState<ProxySettings | null | undefined>(undefined);
  const [open, setOpen] = useState<number | null>(null);
  const action = useAction();
  const list = revisions.data ? [...revisions.data.data].reverse() : [];
  const startFrom = list.find((r) => r.is_active) ?? list[0] ?? null;

  const update = (revision: ProxySettings, body: { is_active?: boolean; description?: string }) =>
    action.run(async () => {
      await api('POST', `${path}/proxy-settings/${revision.revision}`, body);
      revisions.reload();
    });

  return (
    <div class="card" data-testid="proxy-card">
      <div class="card-head">
        <h2>Proxy settings</h2>
        {canWrite && editingFrom === undefined && (
          <button type="button" onClick={() => setEditingFrom(startFrom)} data-testid="new-revision">
            New revision
          </button>
        )}
      </div>
      <ErrorBanner error={revisions.error} onRetry={revisions.reload} />
      <ErrorBanner error={action.error} />
      {editingFrom !== undefined && (
        <ProxyEditor
          path={path}
          from={editingFrom}
          onCancel={() => setEditingFrom(undefined)}
          onCreated={(created) => {
            setEditingFrom(undefined);
            setOpen(created.revision);
            revisions.reload();
          }}
        />
      )}
      {revisions.loading && !revisions.data && <Loading what="revisions" />}
      {revisions.data && list.length === 0 && editingFrom === undefined && (
        <Empty title="No proxy settings">
          {canWrite ? 'Create the first revision with "New revision".' : 'No revision has been created.'}
        </Empty>
      )}
      {list.length > 0 && (
        <table data-testid="revisions-table">
          <thead>
            <tr>
              <th>Revision</th>
              <th>Description</th>
              <th class="num">Backends</th>
              <th class="num">Routes</th>
              <th>Status</th>
              <th>
                <span class="sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {list.map((revision) => (
              <Fragment key={revision.revision}>
                <tr data-testid="revision-row" data-revision={revision.revision}>
                  <td>#{revision.revision}</td>
                  <td>
                    <Description
                      revision={revision}
                      canWrite={canWrite}
                      onSave={(description) => update(revision, { description })}
                    />
                  </td>
                  <td class="num">{revision.backends.length}</td>
                  <td class="num">{revision.routes.length}</td>
                  <td>
                    {revision.is_active ? <span class="badge ok">Active</span> : <span class="muted">inactive</span>}
                  </td>
                  <td class="actions">
                    <button
                      type="button"
                      aria-expanded={open === revision.revision}
                      onClick={() => setOpen(open === revision.revision ? null : revision.revision)}
                    >
                      {open === revision.revision ? 'Hide' : 'View'}
                    </button>
                    {canWrite && (
                      <>
                        <button
                          type="button"
                          disabled={action.busy}
                          onClick={() => update(revision, { is_active: !revision.is_active })}
                        >
                          {revision.is_active ? 'Deactivate' : 'Activate'}
                        </button>
                        <button
                          type="button"
                          onClick={() => setEditingFrom(revision)}
                          disabled={editingFrom !== undefined}
                        >
                          Copy
                        </button>
                      </>
                    )}
                  </td>
                </tr>
                {open === revision.revision && (
                  <tr class="detail-row">
                    <td colSpan={6}>
                      <RevisionDetail revision={revision} />
                    </td>
                  </tr>
                )}
              </Fragment>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}

function Description({
  revision,
  canWrite,
  onSave,
}: {
  revision: ProxySettings;
  canWrite: boolean;
  onSave: (description: string) => Promise<boolean>;
}) {
  const [editing, setEditing] = useState<string | null>(null);
  if (editing === null) {
    return (
      <>
        {revision.description || <span class="muted">—</span>}{' '}
        {canWrite && (
          <button
            type="button"
            class="link"
            aria-label={`Edit the description of revision ${revision.revision}`}
            onClick={() => setEditing(revision.description)}
          >
            edit
          </button>
        )}
      </>
    );
  }
  return (
    <form
      class="inline-form"
      onSubmit={async (event) => {
        event.preventDefault();
        if (await onSave(editing)) setEditing(null);
      }}
    >
      <input
        aria-label={`Description of revision ${revision.revision}`}
        maxLength={1000}
        value={editing}
        onInput={(e) => setEditing(e.currentTarget.value)}
      />
      <button type="submit">Save</button>
      <button type="button" onClick={() => setEditing(null)}>
        Cancel
      </button>
    </form>
  );
}

function RevisionDetail({ revision }: { revision: ProxySettings }) {
  return (
    <div class="revision-detail" data-testid="revision-detail">
      <h4>Backends</h4>
      <table class="compact-table">
        <thead>
          <tr>
            <th>Name</th>
            <th>Address</th>
            <th>TLS</th>
            <th>SNI / override host</th>
            <th>Default</th>
          </tr>
        </thead>
        <tbody>
          {revision.backends.map((b) => (
            <tr key={b.name}>
              <td>{b.name}</td>
              <td class="mono">{b.address}</td>
              <td>{b.enable_ssl ? 'yes' : 'no'}</td>
              <td class="mono">{[b.sni_hostname, b.override_host].filter(Boolean).join(' / ') || '—'}</td>
              <td>{b.default ? 'default' : ''}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <h4>Routes</h4>
      {revision.routes.length === 0 ? (
        <p class="muted small">No routes: everything goes to the default backend.</p>
      ) : (
        <table class="compact-table">
          <thead>
            <tr>
              <th>Path</th>
              <th>Backend</th>
              <th>Rank</th>
              <th>Where</th>
            </tr>
          </thead>
          <tbody>
            {revision.routes.map((r, i) => (
              <tr key={i}>
                <td class="mono">
                  {r.path} {r.regex && <span class="badge">regex</span>}
                </td>
                <td>{r.backend_name}</td>
                <td>{r.rank}</td>
                <td>{[...r.continent, ...r.country, ...r.region].join(', ') || 'everywhere'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}
