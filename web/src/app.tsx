import { useEffect, useState } from 'preact/hooks';
import { setUnauthorizedHandler, storedToken, storeToken, whoAmI, type Session } from './api.js';
import { Loading } from './components/ui.js';
import { navigate, onLinkClick, usePath } from './router.js';
import { SignIn } from './pages/sign-in.js';
import { KeysPage } from './pages/keys/keys-page.js';
import { UsagePage } from './pages/usage.js';
import { SavingsPage } from './pages/savings.js';
import { LogsPage } from './pages/logs.js';
import { ProjectsPage } from './pages/projects/projects-page.js';
import { ToolsPage } from './pages/tools.js';
import { TokensPage } from './pages/tokens.js';
import { ProviderKeysPage } from './pages/provider-keys.js';
import { DebugPage } from './pages/debug.js';
import { SessionsPage } from './pages/sessions.js';
import { SessionPage } from './pages/session.js';
import { SharedSessionPage } from './pages/shared-session.js';
import { AlertsPage } from './pages/alerts.js';
import { MembersPage } from './pages/members.js';
import { InvitePage } from './pages/invite.js';
import { LimitsPage } from './pages/limits.js';

const NAV = [
  ['/keys', 'API keys'],
  ['/usage', 'Usage and cost'],
  ['/savings', 'Savings'],
  ['/sessions', 'Sessions'],
  ['/logs', 'Logs'],
  ['/projects', 'Projects'],
  ['/alerts', 'Alerts'],
  ['/limits', 'Limits'],
  ['/tools', 'Gateway tools'],
  ['/provider-keys', 'Provider keys'],
  ['/tokens', 'API tokens'],
  ['/debug', 'Debug capture'],
  ['/members', 'Members'],
] as const;

/** The pages a `member` may open (the API confines it to its own keys and usage: docs/members.md). */
const MEMBER_PAGES = new Set(['/keys', '/usage', '/logs', '/members']);

export function App() {
  const path = usePath();
  const [session, setSession] = useState<Session | null>(null);
  const [restoring, setRestoring] = useState(() => storedToken() !== null);
  const [notice, setNotice] = useState<string | null>(null);

  const signOut = (message: string | null = null) => {
    storeToken(null);
    setSession(null);
    setNotice(message);
    navigate('/sign-in', true);
  };

  const shared = path === '/shared-session';
  useEffect(() => {
    if (shared) return;
    setUnauthorizedHandler((message) => signOut(`Signed out: ${message}`));
    const token = storedToken();
    if (!token) return;
    whoAmI(token).then(
      (organization) => {
        setSession({ token, organization });
        setRestoring(false);
      },
      (error: Error) => {
        setRestoring(false);
        signOut(`Please sign in again: ${error.message}`);
      },
    );
  }, []);

  useEffect(() => {
    if (shared) return;
    if (!restoring && !session && path !== '/sign-in' && path !== '/invite') navigate('/sign-in', true);
    if (session && (path === '/' || path === '/sign-in')) navigate('/keys', true);
  }, [session, restoring, path]);

  useEffect(() => {
    const page = NAV.find(([href]) => path.startsWith(href))?.[1];
    document.title = page ? `${page} · Gateway console` : 'Gateway console';
  }, [path]);

  // A share link opens one session for anyone holding it: no sign-in, no console token.
  if (shared) return <SharedSessionPage />;
  if (restoring) return <Loading what="your session" />;
  if (path === '/invite') {
    return (
      <InvitePage
        onSignedIn={(token, organization) => {
          storeToken(token);
          setSession({ token, organization });
          navigate('/keys', true);
        }}
      />
    );
  }
  if (!session) {
    return (
      <SignIn
        notice={notice}
        onSignedIn={(token, organization) => {
          storeToken(token);
          setNotice(null);
          setSession({ token, organization });
          navigate('/keys', true);
        }}
      />
    );
  }

  const projectMatch = /^\/projects\/([^/]+)$/.exec(path);
  const sessionMatch = /^\/sessions\/([^/]+)$/.exec(path);
  return (
    <div class="shell">
      <header class="topbar">
        <span class="brand">Gateway console</span>
        <nav aria-label="Console">
          {NAV.filter(([href]) => session.organization.token.member?.role !== 'member' || MEMBER_PAGES.has(href)).map(
            ([href, label]) => (
              <a
                key={href}
                href={href}
                onClick={onLinkClick}
                class={path.startsWith(href) ? 'active' : ''}
                aria-current={path.startsWith(href) ? 'page' : undefined}
              >
                {label}
              </a>
            ),
          )}
        </nav>
        <div class="who">
          <span title={`Organization ${session.organization.id}`} data-testid="org-name">
            {session.organization.name}
          </span>
          <span class="badge" data-testid="signed-in-as">
            {session.organization.token.member
              ? `${session.organization.token.member.role}: ${session.organization.token.member.email}`
              : session.organization.token.permission}
          </span>
          <a href="/docs" target="_blank" rel="noreferrer">
            API reference
          </a>
          <button type="button" class="link" onClick={() => signOut()}>
            Sign out
          </button>
        </div>
      </header>
      <main class="content">
        {path.startsWith('/keys') && <KeysPage session={session} />}
        {path.startsWith('/usage') && <UsagePage session={session} />}
        {path.startsWith('/savings') && <SavingsPage session={session} />}
        {path === '/sessions' && <SessionsPage session={session} />}
        {sessionMatch && <SessionPage session={session} sessionId={decodeURIComponent(sessionMatch[1]!)} />}
        {path.startsWith('/logs') && <LogsPage session={session} />}
        {path.startsWith('/projects') && (
          <ProjectsPage session={session} projectId={projectMatch ? decodeURIComponent(projectMatch[1]!) : null} />
        )}
        {path.startsWith('/alerts') && <AlertsPage session={session} />}
        {path.startsWith('/limits') && <LimitsPage session={session} />}
        {path.startsWith('/tools') && <ToolsPage session={session} />}
        {path.startsWith('/tokens') && <TokensPage session={session} />}
        {path.startsWith('/provider-keys') && <ProviderKeysPage session={session} />}
        {path.startsWith('/debug') && <DebugPage session={session} />}
        {path.startsWith('/members') && <MembersPage session={session} />}
        {!NAV.some(([href]) => path.startsWith(href)) && path !== '/' && path !== '/sign-in' && (
          <p>
            No page here.{' '}
            <a href="/keys" onClick={onLinkClick}>
              Go to API keys
            </a>
            .
          </p>
        )}
      </main>
    </div>
  );
}
