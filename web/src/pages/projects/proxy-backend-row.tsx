import type { ProxyBackend } from './types.js';
import { FieldError, blames } from '../../components/form.js';

/** One backend of a proxy settings draft: its fields, each marked when the server blames it. */
export function BackendRow({
  backend,
  index,
  error,
  only,
  onChange,
  onRemove,
}: {
  backend: ProxyBackend;
  index: number;
  /** The validation or create error: the member it blames is marked. */
  error: unknown;
  /** The last backend cannot be removed. */
  only: boolean;
  onChange: (patch: Partial<ProxyBackend>) => void;
  onRemove: () => void;
}) {
  const at = `backends[${index}]`;
  const n = index + 1;
  return (
    <div class="row-card" data-testid="backend-row">
      <div class="row-fields">
        <label>
          Name
          <input
            aria-label={`Backend ${n} name`}
            value={backend.name}
            aria-invalid={blames(error, `${at}.name`)}
            onInput={(e) => onChange({ name: e.currentTarget.value })}
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
            onInput={(e) => onChange({ address: e.currentTarget.value })}
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
            onChange={() => onChange({ default: true })}
          />
          Default
        </label>
        <label class="check">
          <input
            type="checkbox"
            aria-label={`Backend ${n} uses TLS`}
            checked={backend.enable_ssl}
            onChange={(e) => onChange({ enable_ssl: e.currentTarget.checked })}
          />
          TLS
        </label>
        <button type="button" class="danger" disabled={only} aria-label={`Remove backend ${n}`} onClick={onRemove}>
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
              onInput={(e) => onChange({ sni_hostname: e.currentTarget.value })}
            />
            <FieldError error={error} param={`${at}.sni_hostname`} />
          </label>
          <label>
            Override Host header
            <input
              aria-label={`Backend ${n} override host`}
              value={backend.override_host}
              aria-invalid={blames(error, `${at}.override_host`)}
              onInput={(e) => onChange({ override_host: e.currentTarget.value })}
            />
            <FieldError error={error} param={`${at}.override_host`} />
          </label>
          <label>
            Check certificate for
            <input
              aria-label={`Backend ${n} certificate host name`}
              value={backend.check_certificate}
              onInput={(e) => onChange({ check_certificate: e.currentTarget.value })}
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
              onInput={(e) => onChange({ ca_certificate: e.currentTarget.value })}
            />
            <FieldError error={error} param={`${at}.ca_certificate`} />
          </label>
        </div>
      </details>
    </div>
  );
}
