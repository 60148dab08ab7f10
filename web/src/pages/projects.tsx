import { api, ApiError, withQuery, type ListBody } from '../api.js';
import { Empty, ErrorBanner, Loading, useLoad } from '../components/ui.js';
import { formatDate } from '../format.js';
import { navigate, onLinkClick } from '../router.js';

interface Project {
  id: string;
  slug: string;
  name: string;
  domains: string[];
  created_at: string;
}

interface ProjectComponent {
  id: string;
  component_slug: string | null;
  component_version: string;
  category: string | null;
  subcategory: string | null;
  active: boolean;
  settings: unknown;
}

interface ProxySettings {
  revision: number;
  description: string;
  is_active: boolean;
  backends: unknown[];
  routes: unknown[];
}

interface CollectedEvent {
  id: string;
  type: string;
  timestamp: string;
  received_at: string;
  project_component_id: string;
  data: Record<string, unknown>;
}

const LATEST_EVENTS = 25;
const MAX_EVENT_PAGES = 20;

function NotAvailable() {
  return (
    <Empty title="Projects are not available on this gateway">
      This server's console API has no /v1/projects routes yet. Upgrade the gateway to manage projects, their
      components, proxy settings and collected events here.
    </Empty>
  );
}

export function ProjectsPage({ projectId }: { projectId: string | null }) {
  const list = useLoad(() => api<ListBody<Project>>('GET', '/v1/projects?limit=100'), []);
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
            Sites and apps whose events the collector receives, with their components and proxy settings.
          </p>
        </div>
      </header>
      <ErrorBanner error={list.error} onRetry={list.reload} />
      {list.loading && !list.data && <Loading what="projects" />}
      {list.data && projects.length === 0 && (
        <Empty title="No projects yet">
          Create one with <code>POST /v1/projects</code> (see the <a href="/docs">API reference</a>); then add
          components and send events to the collector.
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
            <ProjectDetail key={selected} project={projects.find((p) => p.id === selected)} projectId={selected} />
          )}
        </div>
      )}
    </section>
  );
}

function ProjectDetail({ project, projectId }: { project: Project | undefined; projectId: string }) {
  const path = `/v1/projects/${encodeURIComponent(projectId)}`;
  const components = useLoad(() => api<ListBody<ProjectComponent>>('GET', `${path}/components`), [path]);
  const revisions = useLoad(() => api<ListBody<ProxySettings>>('GET', `${path}/proxy-settings/revisions`), [path]);
  const events = useLoad(() => latestEvents(`${path}/events`), [path]);
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
  return (
    <div class="detail">
      <div class="card">
        <h2>{project.name}</h2>
        <dl class="facts">
          <dt>Id</dt>
          <dd class="mono">{project.id}</dd>
          <dt>Slug</dt>
          <dd>{project.slug}</dd>
          <dt>Domains</dt>
          <dd>{project.domains.length > 0 ? project.domains.join(', ') : <span class="muted">none</span>}</dd>
          <dt>Created</dt>
          <dd>{formatDate(project.created_at)}</dd>
        </dl>
      </div>
      <div class="card">
        <h2>Components</h2>
        <ErrorBanner error={components.error} onRetry={components.reload} />
        {components.data && components.data.data.length === 0 && (
          <Empty title="No components">
            Add one with <code>POST {path}/components</code>; browse what exists with <code>GET /v1/components</code>.
          </Empty>
        )}
        {components.data && components.data.data.length > 0 && (
          <table>
            <thead>
              <tr>
                <th>Component</th>
                <th>Version</th>
                <th>Category</th>
                <th>Status</th>
              </tr>
            </thead>
            <tbody>
              {components.data.data.map((c) => (
                <tr key={c.id}>
                  <td>
                    {c.component_slug ?? <span class="muted">unknown component</span>}
                    <div class="muted small mono">{c.id}</div>
                  </td>
                  <td>{c.component_version}</td>
                  <td>{[c.category, c.subcategory].filter(Boolean).join(' / ') || '—'}</td>
                  <td>
                    <span class={`badge ${c.active ? 'ok' : 'off'}`}>{c.active ? 'Active' : 'Inactive'}</span>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </div>
      <div class="card">
        <h2>Proxy settings revisions</h2>
        <ErrorBanner error={revisions.error} onRetry={revisions.reload} />
        {revisions.data && revisions.data.data.length === 0 && (
          <Empty title="No proxy settings">
            Create a revision with <code>POST {path}/proxy-settings</code>.
          </Empty>
        )}
        {revisions.data && revisions.data.data.length > 0 && (
          <table>
            <thead>
              <tr>
                <th>Revision</th>
                <th>Description</th>
                <th class="num">Backends</th>
                <th class="num">Routes</th>
                <th>Status</th>
              </tr>
            </thead>
            <tbody>
              {[...revisions.data.data].reverse().map((r) => (
                <tr key={r.revision}>
                  <td>#{r.revision}</td>
                  <td>{r.description || <span class="muted">—</span>}</td>
                  <td class="num">{r.backends.length}</td>
                  <td class="num">{r.routes.length}</td>
                  <td>{r.is_active ? <span class="badge ok">Active</span> : <span class="muted">inactive</span>}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </div>
      <div class="card">
        <h2>Latest collected events</h2>
        <ErrorBanner error={events.error} onRetry={events.reload} />
        {events.loading && !events.data && <Loading what="events" />}
        {events.data && events.data.length === 0 && (
          <Empty title="No events collected yet">
            Events appear here once the collector has stored them for one of this project's warehouse components.
          </Empty>
        )}
        {events.data && events.data.length > 0 && (
          <table>
            <thead>
              <tr>
                <th>Received</th>
                <th>Type</th>
                <th>Event</th>
                <th>Data</th>
              </tr>
            </thead>
            <tbody>
              {events.data.map((e) => (
                <tr key={`${e.id}-${e.project_component_id}`}>
                  <td>{formatDate(e.received_at)}</td>
                  <td>{e.type}</td>
                  <td class="mono small">{e.id}</td>
                  <td class="mono small clip">{JSON.stringify(e.data)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </div>
    </div>
  );
}

/** The list is oldest first: walk its pages to the end (bounded) and keep the newest. */
async function latestEvents(path: string): Promise<CollectedEvent[]> {
  let after: string | undefined;
  let latest: CollectedEvent[] = [];
  for (let page = 0; page < MAX_EVENT_PAGES; page++) {
    const body = await api<ListBody<CollectedEvent>>('GET', withQuery(path, { limit: 1000, starting_after: after }));
    latest = [...latest, ...body.data].slice(-LATEST_EVENTS);
    if (!body.has_more || !body.last_key) break;
    after = body.last_key;
  }
  return latest.reverse();
}
