import { api, withQuery, type ListBody } from '../../api.js';
import { Empty, ErrorBanner, Loading, useLoad } from '../../components/ui.js';
import { formatDate } from '../../format.js';
import type { CollectedEvent } from './types.js';

const LATEST_EVENTS = 25;
const MAX_EVENT_PAGES = 20;

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

/** The newest events the project's warehouse components stored (`GET /v1/projects/{id}/events`). */
export function EventsCard({ path }: { path: string }) {
  const events = useLoad(() => latestEvents(`${path}/events`), [path]);
  return (
    <div class="card" data-testid="events-card">
      <div class="card-head">
        <h2>Latest collected events</h2>
        <button type="button" onClick={events.reload}>
          Refresh
        </button>
      </div>
      <ErrorBanner error={events.error} onRetry={events.reload} />
      {events.loading && !events.data && <Loading what="events" />}
      {events.data && events.data.length === 0 && (
        <Empty title="No events collected yet">
          Events appear here once the collector has stored them for one of this project's warehouse components.
        </Empty>
      )}
      {events.data && events.data.length > 0 && (
        <table data-testid="events-table">
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
  );
}
