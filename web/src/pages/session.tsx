import { useState } from 'preact/hooks';
import { api, orgBase, permissions, type ListBody, type Session } from '../api.js';
import { ErrorBanner, Loading, SecretBox, useLoad } from '../components/ui.js';
import { SessionView } from '../components/session-view.js';
import { formatDate } from '../format.js';
import { onLinkClick } from '../router.js';
import type { SessionDetail, ShareLink } from '../session-types.js';

const LIFETIMES = [
  [1, '1 hour'],
  [24, '1 day'],
  [168, '7 days'],
  [720, '30 days'],
] as const;

export function SessionPage({ session, sessionId }: { session: Session; sessionId: string }) {
  const path = `${orgBase(session)}/sessions/${encodeURIComponent(sessionId)}`;
  const detail = useLoad(() => api<SessionDetail>('GET', path), [path]);
  const data = detail.data;
  return (
    <section>
      <header class="page-header">
        <div>
          <p class="small">
            <a href="/sessions" onClick={onLinkClick}>
              ← Sessions
            </a>
          </p>
          <h1>Session</h1>
          <p class="muted mono small" data-testid="session-id">
            {sessionId}
          </p>
          {data && (
            <p class="muted">
              {(data.members ?? []).map((m) => m.email ?? m.id).join(', ') || 'No member'} · key{' '}
              {(data.api_keys ?? []).map((k) => k.name ?? k.id).join(', ')}
            </p>
          )}
        </div>
      </header>
      <ErrorBanner error={detail.error} onRetry={detail.reload} />
      {detail.loading && !data && <Loading what="the session" />}
      {data && <SessionView session={data} />}
      {data && <ShareLinks session={session} path={path} />}
    </section>
  );
}

/** Read-only links to this session: made with an expiry, listed, revoked. */
function ShareLinks({ session, path }: { session: Session; path: string }) {
  const { canWrite } = permissions(session);
  const links = useLoad(() => api<ListBody<ShareLink>>('GET', `${path}/share_links`), [path]);
  const [hours, setHours] = useState<number>(168);
  const [made, setMade] = useState<ShareLink | null>(null);
  const [error, setError] = useState<unknown>(null);
  const base = orgBase(session);

  const make = async () => {
    setError(null);
    try {
      setMade(await api<ShareLink>('POST', `${path}/share_links`, { expires_in_hours: hours }));
      links.reload();
    } catch (failure) {
      setError(failure);
    }
  };
  const revoke = async (id: string) => {
    setError(null);
    try {
      await api<ShareLink>('DELETE', `${base}/share_links/${encodeURIComponent(id)}`);
      if (made?.id === id) setMade(null);
      links.reload();
    } catch (failure) {
      setError(failure);
    }
  };

  return (
    <div class="card" data-testid="share-links">
      <h2>Share links</h2>
      <p class="muted">
        A share link opens this session read-only, without a console token, until it expires or is revoked. It shows the
        figures and requests, not the keys or members.
      </p>
      {canWrite && (
        <div class="toolbar">
          <label>
            Expires after{' '}
            <select name="expires_in_hours" value={hours} onChange={(e) => setHours(Number(e.currentTarget.value))}>
              {LIFETIMES.map(([value, label]) => (
                <option value={value}>{label}</option>
              ))}
            </select>
          </label>
          <button type="button" class="primary" onClick={make} data-testid="make-share-link">
            Make a share link
          </button>
        </div>
      )}
      {made?.path && (
        <div data-testid="share-link-made">
          <p class="small">Copy the link now: it is not shown again.</p>
          <SecretBox secret={`${location.origin}${made.path}`} />
        </div>
      )}
      <ErrorBanner error={error} />
      <ErrorBanner error={links.error} onRetry={links.reload} />
      {links.data && links.data.data.length === 0 && <p class="muted small">No share links yet.</p>}
      {links.data && links.data.data.length > 0 && (
        <table class="compact-table">
          <thead>
            <tr>
              <th>Made</th>
              <th>Expires</th>
              <th>Status</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {links.data.data.map((link) => (
              <tr key={link.id} data-testid="share-link-row" data-status={link.status}>
                <td>{formatDate(link.created_at)}</td>
                <td>{formatDate(link.expires_at)}</td>
                <td>
                  <span class={`badge ${link.status === 'active' ? 'ok' : 'warn'}`}>{link.status}</span>
                </td>
                <td>
                  {canWrite && link.status === 'active' && (
                    <button type="button" class="link" onClick={() => revoke(link.id)} data-testid="revoke-share-link">
                      Revoke
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}
