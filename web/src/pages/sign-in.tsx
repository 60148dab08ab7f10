import { useState } from 'preact/hooks';
import { whoAmI, type CurrentOrganization } from '../api.js';
import { ErrorBanner } from '../components/ui.js';

export function SignIn({
  onSignedIn,
  notice,
}: {
  onSignedIn: (token: string, organization: CurrentOrganization) => void;
  notice: string | null;
}) {
  const [token, setToken] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const secret = token.trim();
      onSignedIn(secret, await whoAmI(secret));
    } catch (failure) {
      setError(failure);
      setBusy(false);
    }
  };
  return (
    <main class="sign-in">
      <form class="card" onSubmit={submit}>
        <h1>Gateway console</h1>
        <p class="muted">
          Sign in with a console token. It stays in this tab only (sessionStorage) and is sent to this server as a
          Bearer token.
        </p>
        {notice && <div class="banner info">{notice}</div>}
        <label>
          Console token
          <input
            name="token"
            type="password"
            autoComplete="off"
            required
            autoFocus
            value={token}
            onInput={(event) => setToken(event.currentTarget.value)}
            placeholder="Paste your console token"
          />
        </label>
        <ErrorBanner error={error} />
        <button class="primary" type="submit" disabled={busy || token.trim() === ''}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
        <p class="muted small">
          No token yet? On the gateway host run <code>bin/gateway admin bootstrap --org &lt;slug&gt;</code>; it prints
          the first one.
        </p>
      </form>
    </main>
  );
}
