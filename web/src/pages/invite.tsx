import { useEffect, useState } from 'preact/hooks';
import { ApiError, whoAmI, type CurrentOrganization } from '../api.js';
import { ErrorBanner, Loading } from '../components/ui.js';
import type { InviteAcceptance } from './members-api.js';

/**
 * /invite#<secret>: the link an admin sent. The secret travels in the fragment (never in a
 * server log) and is posted once to /v1/invites/accept, which answers with a console token
 * bound to the new member; this tab signs in with it.
 */
export function InvitePage({ onSignedIn }: { onSignedIn: (token: string, organization: CurrentOrganization) => void }) {
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    const secret = location.hash.slice(1);
    // The secret is single use: drop it from the address bar and history at once.
    history.replaceState(null, '', '/invite');
    if (!secret) return setError(new Error('This link carries no invite: open the whole link you were sent.'));
    (async () => {
      const response = await fetch('/v1/invites/accept', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ token: secret }),
      });
      const body = (await response.json()) as InviteAcceptance & { message?: string };
      if (!response.ok) throw new ApiError(response.status, body.message ?? response.statusText);
      const token = body.console_token.token;
      onSignedIn(token, await whoAmI(token));
    })().catch(setError);
  }, []);
  return (
    <main class="content">
      <h1>Joining the organization</h1>
      {error ? <ErrorBanner error={error} /> : <Loading what="your invite" />}
    </main>
  );
}
