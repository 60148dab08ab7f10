import type { ProxyBackend } from './types.js';
import { FieldError, blames } from '../../components/form.js';
import type { RouteDraft } from './proxy-draft.js';

/** One route of a proxy settings draft: path, backend, rank and the places it applies to. */
export function RouteRow({
  route,
  index,
  error,
  backends,
  onChange,
  onRemove,
}: {
  route: RouteDraft;
  index: number;
  /** The validation or create error: the member it blames is marked. */
  error: unknown;
  /** The draft's backends, to choose from. */
  backends: ProxyBackend[];
  onChange: (patch: Partial<RouteDraft>) => void;
  onRemove: () => void;
}) {
  const at = `routes[${index}]`;
  const n = index + 1;
  return (
    <div class="row-card" data-testid="route-row">
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
            onInput={(e) => onChange({ path: e.currentTarget.value })}
          />
          <FieldError error={error} param={`${at}.path`} />
        </label>
        <label class="check">
          <input
            type="checkbox"
            aria-label={`Route ${n} path is a regular expression`}
            name={`${at}.regex`}
            checked={route.regex}
            onChange={(e) => onChange({ regex: e.currentTarget.checked })}
          />
          Regex
        </label>
        <label>
          Backend
          <select
            aria-label={`Route ${n} backend`}
            value={route.backend_name}
            aria-invalid={blames(error, `${at}.backend_name`)}
            onChange={(e) => onChange({ backend_name: e.currentTarget.value })}
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
            onInput={(e) => onChange({ rank: e.currentTarget.value })}
          />
          <FieldError error={error} param={`${at}.rank`} />
        </label>
        <button type="button" class="danger" aria-label={`Remove route ${n}`} onClick={onRemove}>
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
            onInput={(e) => onChange({ continent: e.currentTarget.value })}
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
            onInput={(e) => onChange({ country: e.currentTarget.value })}
          />
          <FieldError error={error} param={`${at}.country`} />
        </label>
        <label>
          Regions
          <input
            aria-label={`Route ${n} regions`}
            value={route.region}
            aria-invalid={blames(error, `${at}.region`)}
            onInput={(e) => onChange({ region: e.currentTarget.value })}
          />
          <FieldError error={error} param={`${at}.region`} />
        </label>
      </div>
    </div>
  );
}
