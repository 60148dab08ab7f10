import { ApiError } from '../api.js';
import { ErrorBanner, Loading, useLoad } from '../components/ui.js';
import { SessionView } from '../components/session-view.js';
import { formatDate } from '../format.js';
import type { SessionDetail } from '../session-types.js';

/**
 * The read-only page a share link opens, without signing in: the link's secret is the URL's
 * fragment (never sent to the server with the page), sent once as a Bearer token to the API.
 */
async function loadShared(secret: string): Promise<SessionDetail> {
  if (!secret) throw new ApiError(401, 'This link has no secret: copy the whole share link.');
  let response: Response;
  try {
    response = await fetch('/v1/shared_session', { headers: { authorization: `Bearer ${secret}` } });
  } catch (error) {
    throw new ApiError(0, `The console API could not be reached: ${(error as Error).message}`);
  }
  if (response.ok) return (await response.json()) as SessionDetail;
  const problem = (await response.json().catch(() => ({}))) as { message?: string };
  throw new ApiError(response.status, problem.message ?? `${response.status} ${response.statusText}`);
}

export function SharedSessionPage() {
  const secret = decodeURIComponent(location.hash.slice(1));
  const shared = useLoad(() => loadShared(secret), [secret]);
  const data = shared.data;
  return (
    <div class="shell">
      <header class="topbar">
        <span class="brand">Gateway console</span>
        <span class="muted">Shared session, read-only</span>
      </header>
      <main class="content">
        <section>
          <header class="page-header">
            <div>
              <h1>Session</h1>
              {data && (
                <p class="muted">
                  <span class="mono small">{data.id}</span> · shared until {formatDate(data.shared_until ?? null)}
                </p>
              )}
            </div>
          </header>
          <ErrorBanner error={shared.error} />
          {shared.loading && !data && <Loading what="the shared session" />}
          {data && <SessionView session={data} />}
        </section>
      </main>
    </div>
  );
}
