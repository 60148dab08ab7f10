import { useState } from 'preact/hooks';
import { api, ApiError, permissions, type ListBody, type Session } from '../../api.js';
import { Empty, ErrorBanner, Loading, useLoad } from '../../components/ui.js';
import { FieldError, splitList, useAction } from '../../components/form.js';
import { navigate, onLinkClick } from '../../router.js';
import { ProjectDetail } from './project-detail.js';
import type { Project } from './types.js';

function NotAvailable() {
  return (
    <Empty title="Projects are not available on this gateway">
      This server's console API has no /v1/projects routes yet. Upgrade the gateway to manage projects, their
      components, proxy settings and collected events here.
    </Empty>
  );
}

/** Projects (`/v1/projects`): the list on the left, the chosen project's detail on the right. */
export function ProjectsPage({ session, projectId }: { session: Session; projectId: string | null }) {
  const { canWrite } = permissions(session);
  const list = useLoad(() => api<ListBody<Project>>('GET', '/v1/projects?limit=100'), []);
  const [creating, setCreating] = useState(false);
  if (list.error instanceof ApiError && list.error.routeMissing) {
    return (
      <section>
        <h1>Projects</h1>
        <NotAvailable />
      </section>
    );
  }
  const projects = list.data?.data ?? [];
  const selected = projectId ?? projects[0]?.id ?? null;
  return (
    <section>
      <header class="page-header">
        <div>
          <h1>Projects</h1>
          <p class="muted">
            Sites and apps whose events the collector receives, with their domains, components and proxy settings.
          </p>
        </div>
        {canWrite && !creating && (
          <button class="primary" type="button" onClick={() => setCreating(true)} data-testid="new-project">
            Create project
          </button>
        )}
      </header>
      {creating && (
        <CreateProjectForm
          onCancel={() => setCreating(false)}
          onCreated={(project) => {
            setCreating(false);
            list.reload();
            navigate(`/projects/${project.id}`);
          }}
        />
      )}
      <ErrorBanner error={list.error} onRetry={list.reload} />
      {list.loading && !list.data && <Loading what="projects" />}
      {list.data && projects.length === 0 && !creating && (
        <Empty title="No projects yet">
          {canWrite
            ? 'Create one with "Create project"; then claim its domains, add components and send events to the collector.'
            : 'Ask someone with a write token to create one.'}
        </Empty>
      )}
      {projects.length > 0 && (
        <div class="split">
          <nav class="card project-list" aria-label="Projects">
            {projects.map((project) => (
              <a
                key={project.id}
                href={`/projects/${project.id}`}
                onClick={onLinkClick}
                class={project.id === selected ? 'active' : ''}
                aria-current={project.id === selected ? 'page' : undefined}
              >
                <span class="strong">{project.name}</span>
                <span class="muted small">{project.slug}</span>
              </a>
            ))}
            {list.data?.has_more && <p class="muted small">Showing the first 100 projects.</p>}
          </nav>
          {selected && (
            <ProjectDetail
              key={selected}
              session={session}
              project={projects.find((p) => p.id === selected)}
              onChanged={list.reload}
              onDeleted={() => {
                list.reload();
                navigate('/projects');
              }}
            />
          )}
        </div>
      )}
    </section>
  );
}

function CreateProjectForm({ onCreated, onCancel }: { onCreated: (project: Project) => void; onCancel: () => void }) {
  const [slug, setSlug] = useState('');
  const [name, setName] = useState('');
  const [domains, setDomains] = useState('');
  const create = useAction();
  const submit = async (event: Event) => {
    event.preventDefault();
    let project: Project | undefined;
    await create.run(async () => {
      project = await api<Project>('POST', '/v1/projects', {
        slug: slug.trim(),
        name: name.trim(),
        domains: splitList(domains.toLowerCase()),
      });
    });
    if (project) onCreated(project);
  };
  return (
    <form class="card form-grid" onSubmit={submit} data-testid="create-project-form">
      <h2>New project</h2>
      <label>
        Name
        <input
          name="name"
          required
          maxLength={200}
          value={name}
          onInput={(e) => {
            const typed = e.currentTarget.value;
            // Suggest a slug from the name until the slug is typed by hand.
            if (slug === slugOf(name)) setSlug(slugOf(typed));
            setName(typed);
          }}
          placeholder="e.g. Shop"
        />
        <FieldError error={create.error} param="name" />
      </label>
      <label>
        Slug <span class="muted">(a-z, 0-9 and dashes)</span>
        <input
          name="slug"
          required
          maxLength={63}
          pattern="[a-z0-9][a-z0-9\-]{0,62}"
          value={slug}
          onInput={(e) => setSlug(e.currentTarget.value)}
          placeholder="shop"
        />
        <FieldError error={create.error} param="slug" />
      </label>
      <label class="wide">
        Domains <span class="muted">(optional, one per line; each must then be verified)</span>
        <textarea
          name="domains"
          rows={2}
          value={domains}
          onInput={(e) => setDomains(e.currentTarget.value)}
          placeholder="shop.example.com"
        />
        <FieldError error={create.error} param="domains" />
      </label>
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
          disabled={create.busy || !slug.trim() || !name.trim()}
          data-testid="create-project"
        >
          {create.busy ? 'Creating…' : 'Create project'}
        </button>
      </div>
    </form>
  );
}

export const slugOf = (name: string) =>
  name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 63);
