import { useState } from 'preact/hooks';
import { api, permissions, type Session } from '../../api.js';
import { ConfirmDialog, Empty, ErrorBanner } from '../../components/ui.js';
import { FieldError, useAction } from '../../components/form.js';
import { formatDate } from '../../format.js';
import { navigate } from '../../router.js';
import { DomainsCard } from './domains-card.js';
import { ProxySettingsCard } from './proxy-settings-card.js';
import { ComponentsCard } from './components-card.js';
import { EventsCard } from './events-card.js';
import type { Project } from './types.js';

export function ProjectDetail({
  session,
  project,
  onChanged,
  onDeleted,
}: {
  session: Session;
  project: Project | undefined;
  onChanged: () => void;
  onDeleted: () => void;
}) {
  const { canWrite } = permissions(session);
  const [editing, setEditing] = useState(false);
  const [deleting, setDeleting] = useState(false);
  if (!project) {
    return (
      <div class="card">
        <Empty title="No such project">
          It may have been deleted.{' '}
          <button class="link" type="button" onClick={() => navigate('/projects')}>
            Back to the list
          </button>
        </Empty>
      </div>
    );
  }
  const path = `/v1/projects/${encodeURIComponent(project.id)}`;
  return (
    <div class="detail" data-testid="project-detail">
      <div class="card">
        <div class="card-head">
          <h2>{project.name}</h2>
          {canWrite && !editing && (
            <div class="actions">
              <button type="button" onClick={() => setEditing(true)} data-testid="edit-project">
                Edit
              </button>
              <button type="button" class="danger" onClick={() => setDeleting(true)} data-testid="delete-project">
                Delete
              </button>
            </div>
          )}
        </div>
        {editing ? (
          <EditProjectForm
            path={path}
            project={project}
            onCancel={() => setEditing(false)}
            onSaved={() => {
              setEditing(false);
              onChanged();
            }}
          />
        ) : (
          <dl class="facts">
            <dt>Id</dt>
            <dd class="mono">{project.id}</dd>
            <dt>Slug</dt>
            <dd>{project.slug}</dd>
            <dt>Created</dt>
            <dd>{formatDate(project.created_at)}</dd>
            <dt>Updated</dt>
            <dd>{formatDate(project.updated_at)}</dd>
          </dl>
        )}
      </div>
      <DomainsCard path={path} project={project} canWrite={canWrite} onChanged={onChanged} />
      <ProxySettingsCard path={path} canWrite={canWrite} />
      <ComponentsCard path={path} canWrite={canWrite} />
      <EventsCard path={path} />
      {deleting && (
        <ConfirmDialog
          title="Delete project?"
          message={
            <>
              <strong>{project.name}</strong> and its domains, proxy settings, components and collected events are
              deleted. The collector stops serving its domains at once. This cannot be undone.
            </>
          }
          confirm="Delete project"
          onConfirm={async () => {
            await api('DELETE', path);
            onDeleted();
          }}
          onClose={() => setDeleting(false)}
        />
      )}
    </div>
  );
}

function EditProjectForm({
  path,
  project,
  onSaved,
  onCancel,
}: {
  path: string;
  project: Project;
  onSaved: () => void;
  onCancel: () => void;
}) {
  const [name, setName] = useState(project.name);
  const [slug, setSlug] = useState(project.slug);
  const save = useAction();
  const submit = async (event: Event) => {
    event.preventDefault();
    const saved = await save.run(async () => {
      const body: Record<string, string> = {};
      if (name.trim() !== project.name) body.name = name.trim();
      if (slug.trim() !== project.slug) body.slug = slug.trim();
      if (Object.keys(body).length > 0) await api('POST', path, body);
    });
    if (saved) onSaved();
  };
  return (
    <form class="form-grid" onSubmit={submit} data-testid="edit-project-form">
      <label>
        Name
        <input name="name" required maxLength={200} value={name} onInput={(e) => setName(e.currentTarget.value)} />
        <FieldError error={save.error} param="name" />
      </label>
      <label>
        Slug
        <input name="slug" required maxLength={63} value={slug} onInput={(e) => setSlug(e.currentTarget.value)} />
        <FieldError error={save.error} param="slug" />
      </label>
      <div class="wide">
        <ErrorBanner error={save.error} />
      </div>
      <div class="wide form-actions">
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
        <button type="submit" class="primary" disabled={save.busy} data-testid="save-project">
          {save.busy ? 'Saving…' : 'Save'}
        </button>
      </div>
    </form>
  );
}
