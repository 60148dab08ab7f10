import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { api } from '../../api.js';
import { ErrorBanner } from '../../components/ui.js';
import { FieldError, useAction } from '../../components/form.js';
import { BackendRow } from './proxy-backend-row.js';
import { NEW_BACKEND, bodyOf, routeDraft, type RouteDraft } from './proxy-draft.js';
import { RouteRow } from './proxy-route-row.js';
import type { ProxyBackend, ProxySettings } from './types.js';

/** Time after the last keystroke before the draft is checked by the server. */
const VALIDATE_DELAY_MS = 300;

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
        {backends.map((backend, i) => (
          <BackendRow
            key={i}
            backend={backend}
            index={i}
            error={error}
            only={backends.length === 1}
            onChange={(patch) => setBackend(i, patch)}
            onRemove={() => setBackends((list) => list.filter((_, j) => j !== i))}
          />
        ))}
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
        {routes.map((route, i) => (
          <RouteRow
            key={i}
            route={route}
            index={i}
            error={error}
            backends={backends}
            onChange={(patch) => setRoute(i, patch)}
            onRemove={() => setRoutes((list) => list.filter((_, j) => j !== i))}
          />
        ))}
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
