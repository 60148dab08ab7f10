import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { api } from '../../api.js';
import { ErrorBanner } from '../../components/ui.js';
import { FieldError, blames, splitList, useAction } from '../../components/form.js';
import type { ProxyBackend, ProxyRoute, ProxySettings } from './types.js';

/** Time after the last keystroke before the draft is checked by the server. */
const VALIDATE_DELAY_MS = 300;

interface RouteDraft {
  path: string;
  regex: boolean;
  backend_name: string;
  rank: string;
  continent: string;
  country: string;
  region: string;
}

const NEW_BACKEND: ProxyBackend = {
  name: '',
  address: '',
  enable_ssl: true,
  check_certificate: '',
  ca_certificate: '',
  sni_hostname: '',
  default: false,
  override_host: '',
};

const routeDraft = (route: ProxyRoute): RouteDraft => ({
  path: route.path,
  regex: route.regex,
  backend_name: route.backend_name,
  rank: route.rank,
  continent: route.continent.join(', '),
  country: route.country.join(', '),
  region: route.region.join(', '),
});

/** The create body (spec 2.10) for the draft as typed. */
function bodyOf(description: string, activate: boolean, backends: ProxyBackend[], routes: RouteDraft[]) {
  return {
    description,
    is_active: activate,
    backends,
    routes: routes.map((route) => ({
      path: route.path,
      regex: route.regex,
      backend_name: route.backend_name,
      rank: route.rank.trim() === '' ? '0' : route.rank.trim(),
      continent: splitList(route.continent.toUpperCase()),
      country: splitList(route.country.toUpperCase()),
      region: splitList(route.region),
    })),
  };
}

type Check = { state: 'idle' | 'checking' | 'valid' } | { state: 'invalid'; error: unknown };

/**
 * A new proxy settings revision. Revisions never change once created, so the editor starts from
 * a copy of an existing one (or from scratch). As the user types, the draft is sent to
 * `POST …/proxy-settings/validate` — the create route's own checks, nothing stored — and the
 * member the server blames is marked where it is typed.
 */
export function ProxyEditor({
  path,
  from,
  onCreated,
  onCancel,
}: {
  path: string;
  from: ProxySettings | null;
  onCreated: (created: ProxySettings) => void;
  onCancel: () => void;
}) {
  const [description, setDescription] = useState(from ? from.description : '');
  const [activate, setActivate] = useState(false);
  const [backends, setBackends] = useState<ProxyBackend[]>(
    from ? from.backends : [{ ...NEW_BACKEND, name: 'origin', default: true }],
  );
  const [routes, setRoutes] = useState<RouteDraft[]>(from ? from.routes.map(routeDraft) : []);
  const [check, setCheck] = useState<Check>({ state: 'idle' });
  const create = useAction();
  const body = useMemo(
    () => bodyOf(description, activate, backends, routes),
    [description, activate, backends, routes],
  );
  const sequence = useRef(0);

  useEffect(() => {
    const mine = ++sequence.current;
    setCheck({ state: 'checking' });
    const timer = setTimeout(() => {
      api('POST', `${path}/proxy-settings/validate`, body).then(
        () => mine === sequence.current && setCheck({ state: 'valid' }),
        (error: unknown) => mine === sequence.current && setCheck({ state: 'invalid', error }),
      );
    }, VALIDATE_DELAY_MS);
    return () => clearTimeout(timer);
  }, [path, body]);

  const error = check.state === 'invalid' ? check.error : create.error;
  const setBackend = (index: number, patch: Partial<ProxyBackend>) =>
    setBackends((list) =>
      list.map((backend, i) =>
        i === index ? { ...backend, ...patch } : patch.default ? { ...backend, default: false } : backend,
      ),
    );
  const setRoute = (index: number, patch: Partial<RouteDraft>) =>
    setRoutes((list) => list.map((route, i) => (i === index ? { ...route, ...patch } : route)));

  const submit = async (event: Event) => {
    event.preventDefault();
    let created: ProxySettings | undefined;
    await create.run(async () => {
      created = await api<ProxySettings>('POST', `${path}/proxy-settings`, body);
    });
    if (created) onCreated(created);
  };

  return (
    <form class="proxy-editor" onSubmit={submit} data-testid="proxy-editor">
      <h3>New revision{from ? `, from #${from.revision}` : ''}</h3>
      <div class="form-grid">
        <label class="wide">
          Description
          <input
            name="description"
            maxLength={1000}
            value={description}
            onInput={(e) => setDescription(e.currentTarget.value)}
            placeholder="e.g. EU traffic to the Frankfurt origin"
          />
        </label>
      </div>

      <fieldset class="rows">
        <legend>Backends</legend>
        <FieldError error={error} param="backends" exact />
        {backends.map((backend, i) => {
          const at = `backends[${i}]`;
          const n = i + 1;
          return (
            <div class="row-card" key={i} data-testid="backend-row">
              <div class="row-fields">
                <label>
                  Name
                  <input
                    aria-label={`Backend ${n} name`}
                    value={backend.name}
                    aria-invalid={blames(error, `${at}.name`)}
                    onInput={(e) => setBackend(i, { name: e.currentTarget.value })}
                  />
                  <FieldError error={error} param={`${at}.name`} />
                </label>
                <label>
                  <span>
                    Address <span class="muted">(host or host:port)</span>
                  </span>
                  <input
                    aria-label={`Backend ${n} address`}
                    name={`${at}.address`}
                    value={backend.address}
                    aria-invalid={blames(error, `${at}.address`)}
                    onInput={(e) => setBackend(i, { address: e.currentTarget.value })}
                    placeholder="origin.example.com:443"
                  />
                  <FieldError error={error} param={`${at}.address`} />
                </label>
                <label class="check">
                  <input
                    type="radio"
                    name="default-backend"
                    aria-label={`Backend ${n} is the default`}
                    checked={backend.default}
                    onChange={() => setBackend(i, { default: true })}
                  />
                  Default
                </label>
                <label class="check">
                  <input
                    type="checkbox"
                    aria-label={`Backend ${n} uses TLS`}
                    checked={backend.enable_ssl}
                    onChange={(e) => setBackend(i, { enable_ssl: e.currentTarget.checked })}
                  />
                  TLS
                </label>
                <button
                  type="button"
                  class="danger"
                  disabled={backends.length === 1}
                  aria-label={`Remove backend ${n}`}
                  onClick={() => setBackends((list) => list.filter((_, j) => j !== i))}
                >
                  Remove
                </button>
              </div>
              <details>
                <summary>TLS and host options</summary>
                <div class="row-fields">
                  <label>
                    SNI host name
                    <input
                      aria-label={`Backend ${n} SNI host name`}
                      value={backend.sni_hostname}
                      aria-invalid={blames(error, `${at}.sni_hostname`)}
                      onInput={(e) => setBackend(i, { sni_hostname: e.currentTarget.value })}
                    />
                    <FieldError error={error} param={`${at}.sni_hostname`} />
                  </label>
                  <label>
                    Override Host header
                    <input
                      aria-label={`Backend ${n} override host`}
                      value={backend.override_host}
                      aria-invalid={blames(error, `${at}.override_host`)}
                      onInput={(e) => setBackend(i, { override_host: e.currentTarget.value })}
                    />
                    <FieldError error={error} param={`${at}.override_host`} />
                  </label>
                  <label>
                    Check certificate for
                    <input
                      aria-label={`Backend ${n} certificate host name`}
                      value={backend.check_certificate}
                      onInput={(e) => setBackend(i, { check_certificate: e.currentTarget.value })}
                    />
                    <FieldError error={error} param={`${at}.check_certificate`} />
                  </label>
                  <label class="wide">
                    CA certificate (PEM)
                    <textarea
                      aria-label={`Backend ${n} CA certificate`}
                      class="mono"
                      rows={3}
                      value={backend.ca_certificate}
                      aria-invalid={blames(error, `${at}.ca_certificate`)}
                      onInput={(e) => setBackend(i, { ca_certificate: e.currentTarget.value })}
                    />
                    <FieldError error={error} param={`${at}.ca_certificate`} />
                  </label>
                </div>
              </details>
            </div>
          );
        })}
        <button
          type="button"
          disabled={backends.length >= 50}
          onClick={() => setBackends((list) => [...list, { ...NEW_BACKEND, name: `backend-${list.length + 1}` }])}
        >
          Add backend
        </button>
      </fieldset>

      <fieldset class="rows">
        <legend>Routes</legend>
        {routes.length === 0 && <p class="muted small">No routes: every request goes to the default backend.</p>}
        {routes.map((route, i) => {
          const at = `routes[${i}]`;
          const n = i + 1;
          return (
            <div class="row-card" key={i} data-testid="route-row">
              <div class="row-fields">
                <label class="grow">
                  <span>
                    Path <span class="muted">{route.regex ? '(regular expression)' : '(prefix)'}</span>
                  </span>
                  <input
                    aria-label={`Route ${n} path`}
                    name={`${at}.path`}
                    class="mono"
                    value={route.path}
                    aria-invalid={blames(error, `${at}.path`)}
                    onInput={(e) => setRoute(i, { path: e.currentTarget.value })}
                  />
                  <FieldError error={error} param={`${at}.path`} />
                </label>
                <label class="check">
                  <input
                    type="checkbox"
                    aria-label={`Route ${n} path is a regular expression`}
                    name={`${at}.regex`}
                    checked={route.regex}
                    onChange={(e) => setRoute(i, { regex: e.currentTarget.checked })}
                  />
                  Regex
                </label>
                <label>
                  Backend
                  <select
                    aria-label={`Route ${n} backend`}
                    value={route.backend_name}
                    aria-invalid={blames(error, `${at}.backend_name`)}
                    onChange={(e) => setRoute(i, { backend_name: e.currentTarget.value })}
                  >
                    {!backends.some((b) => b.name === route.backend_name) && (
                      <option value={route.backend_name}>{route.backend_name || '(choose)'}</option>
                    )}
                    {backends.map((b) => (
                      <option value={b.name}>{b.name}</option>
                    ))}
                  </select>
                  <FieldError error={error} param={`${at}.backend_name`} />
                </label>
                <label class="narrow">
                  Rank
                  <input
                    aria-label={`Route ${n} rank`}
                    inputMode="numeric"
                    value={route.rank}
                    aria-invalid={blames(error, `${at}.rank`)}
                    onInput={(e) => setRoute(i, { rank: e.currentTarget.value })}
                  />
                  <FieldError error={error} param={`${at}.rank`} />
                </label>
                <button
                  type="button"
                  class="danger"
                  aria-label={`Remove route ${n}`}
                  onClick={() => setRoutes((list) => list.filter((_, j) => j !== i))}
                >
                  Remove
                </button>
              </div>
              <div class="row-fields">
                <label>
                  <span>
                    Continents <span class="muted">(AF AN AS EU NA OC SA)</span>
                  </span>
                  <input
                    aria-label={`Route ${n} continents`}
                    value={route.continent}
                    aria-invalid={blames(error, `${at}.continent`)}
                    onInput={(e) => setRoute(i, { continent: e.currentTarget.value })}
                  />
                  <FieldError error={error} param={`${at}.continent`} />
                </label>
                <label>
                  <span>
                    Countries <span class="muted">(ISO codes: FR, DE…)</span>
                  </span>
                  <input
                    aria-label={`Route ${n} countries`}
                    value={route.country}
                    aria-invalid={blames(error, `${at}.country`)}
                    onInput={(e) => setRoute(i, { country: e.currentTarget.value })}
                  />
                  <FieldError error={error} param={`${at}.country`} />
                </label>
                <label>
                  Regions
                  <input
                    aria-label={`Route ${n} regions`}
                    value={route.region}
                    aria-invalid={blames(error, `${at}.region`)}
                    onInput={(e) => setRoute(i, { region: e.currentTarget.value })}
                  />
                  <FieldError error={error} param={`${at}.region`} />
                </label>
              </div>
            </div>
          );
        })}
        <button
          type="button"
          disabled={routes.length >= 200}
          onClick={() =>
            setRoutes((list) => [
              ...list,
              {
                path: '/',
                regex: false,
                backend_name: backends.find((b) => b.default)?.name ?? backends[0]?.name ?? '',
                rank: '0',
                continent: '',
                country: '',
                region: '',
              },
            ])
          }
          data-testid="add-route"
        >
          Add route
        </button>
      </fieldset>

      <div class="validation" aria-live="polite" data-testid="proxy-validation" data-state={check.state}>
        {check.state === 'checking' && <span class="muted">Checking…</span>}
        {check.state === 'valid' && <span class="ok-text">✓ Valid</span>}
        {check.state === 'invalid' && <span class="field-error">✗ {(check.error as Error).message}</span>}
      </div>
      <ErrorBanner error={create.error} />
      <div class="form-actions">
        <label class="check">
          <input
            type="checkbox"
            name="is_active"
            checked={activate}
            onChange={(e) => setActivate(e.currentTarget.checked)}
          />
          Activate it now
        </label>
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
        <button
          type="submit"
          class="primary"
          disabled={create.busy || check.state !== 'valid'}
          data-testid="create-revision"
        >
          {create.busy ? 'Creating…' : 'Create revision'}
        </button>
      </div>
    </form>
  );
}
