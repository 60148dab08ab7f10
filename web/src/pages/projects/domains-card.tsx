import { useState } from 'preact/hooks';
import { api, type ListBody } from '../../api.js';
import { ConfirmDialog, CopyButton, Empty, ErrorBanner, Loading, useLoad } from '../../components/ui.js';
import { FieldError, useAction } from '../../components/form.js';
import { formatDate } from '../../format.js';
import type { Project, ProjectDomain } from './types.js';

const METHODS: Record<string, string> = {
  dns: 'DNS TXT record',
  http: 'well-known HTTPS file',
  development: 'local name, development mode',
  preexisting: 'configured before ownership checks',
};

/**
 * A project's domain claims (docs/console-api.md, "Project domains"): added and removed through
 * the project's `domains`, proved with a DNS TXT record or a well-known file, then verified here.
 * The collector serves a domain only once it is verified.
 */
export function DomainsCard({
  path,
  project,
  canWrite,
  onChanged,
}: {
  path: string;
  project: Project;
  canWrite: boolean;
  onChanged: () => void;
}) {
  const domains = useLoad(() => api<ListBody<ProjectDomain>>('GET', `${path}/domains`), [path, project.updated_at]);
  const [adding, setAdding] = useState('');
  const [removing, setRemoving] = useState<string | null>(null);
  const add = useAction();
  const changed = () => {
    domains.reload();
    onChanged();
  };
  // `domains` replaces the whole set: build it from the claims just read, and wait for a reload between edits.
  const current = domains.data?.data.map((claim) => claim.domain) ?? project.domains;

  const submit = async (event: Event) => {
    event.preventDefault();
    const domain = adding.trim().toLowerCase().replace(/\.$/, '');
    const saved = await add.run(async () => {
      await api('POST', path, { domains: [...current, domain] });
    });
    if (saved) {
      setAdding('');
      changed();
    }
  };

  return (
    <div class="card" data-testid="domains-card">
      <h2>Domains</h2>
      <p class="muted small">
        The collector receives events for a domain once this organization has proved it controls it.
      </p>
      <ErrorBanner error={domains.error} onRetry={domains.reload} />
      {domains.loading && !domains.data && <Loading what="domains" />}
      {domains.data && domains.data.data.length === 0 && (
        <Empty title="No domains">Add the host names your site sends events from.</Empty>
      )}
      {domains.data && domains.data.data.length > 0 && (
        <table data-testid="domains-table">
          <thead>
            <tr>
              <th>Domain</th>
              <th>Status</th>
              <th>
                <span class="sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {domains.data.data.map((claim) => (
              <DomainRow
                key={claim.domain}
                path={path}
                claim={claim}
                canWrite={canWrite}
                onVerified={changed}
                onRemove={() => setRemoving(claim.domain)}
              />
            ))}
          </tbody>
        </table>
      )}
      {canWrite && (
        <form class="inline-form" onSubmit={submit} data-testid="add-domain-form">
          <label>
            Add a domain
            <input
              name="domain"
              value={adding}
              required
              maxLength={253}
              placeholder="www.example.com"
              onInput={(e) => setAdding(e.currentTarget.value)}
            />
          </label>
          <button type="submit" disabled={add.busy || domains.loading || adding.trim() === ''} data-testid="add-domain">
            {add.busy ? 'Adding…' : 'Add domain'}
          </button>
          <FieldError error={add.error} param="domains" />
        </form>
      )}
      <ErrorBanner error={add.error} />
      {removing && (
        <ConfirmDialog
          title="Remove domain?"
          message={
            <>
              The collector stops serving <strong>{removing}</strong> for this project at once, and its verification is
              dropped.
            </>
          }
          confirm="Remove domain"
          onConfirm={async () => {
            await api('POST', path, { domains: current.filter((d) => d !== removing) });
            changed();
          }}
          onClose={() => setRemoving(null)}
        />
      )}
    </div>
  );
}

function DomainRow({
  path,
  claim,
  canWrite,
  onVerified,
  onRemove,
}: {
  path: string;
  claim: ProjectDomain;
  canWrite: boolean;
  onVerified: () => void;
  onRemove: () => void;
}) {
  const [method, setMethod] = useState<'' | 'dns' | 'http'>('');
  const verify = useAction();
  const pending = claim.status === 'pending';
  const run = async () => {
    const done = await verify.run(async () => {
      await api('POST', `${path}/domains/${encodeURIComponent(claim.domain)}/verify`, method ? { method } : {});
    });
    if (done) onVerified();
  };
  return (
    <tr data-testid="domain-row" data-domain={claim.domain}>
      <td>
        <div class="strong mono">{claim.domain}</div>
        {pending && (
          <details class="verification">
            <summary>How to verify</summary>
            <p>Publish either proof, then press Verify:</p>
            <dl class="facts">
              <dt>DNS TXT</dt>
              <dd>
                <code>{claim.verification.dns_record.name}</code> = <code>{claim.verification.dns_record.value}</code>{' '}
                <CopyButton text={claim.verification.dns_record.value} label="Copy value" />
              </dd>
              <dt>or a file</dt>
              <dd>
                <code>{claim.verification.well_known_url}</code> answering the token on a line of its own
              </dd>
            </dl>
          </details>
        )}
        {verify.error !== null && <ErrorBanner error={verify.error} />}
      </td>
      <td>
        {pending ? (
          <span class="badge warn">Pending</span>
        ) : (
          <>
            <span class="badge ok">Verified</span>
            <div class="muted small">
              {claim.verification_method ? METHODS[claim.verification_method] : ''}
              {claim.verified_at ? ` · ${formatDate(claim.verified_at)}` : ''}
            </div>
          </>
        )}
      </td>
      <td class="actions">
        {canWrite && pending && (
          <>
            <select
              aria-label={`How to verify ${claim.domain}`}
              value={method}
              onChange={(e) => setMethod(e.currentTarget.value as '' | 'dns' | 'http')}
            >
              <option value="">Either check</option>
              <option value="dns">DNS TXT</option>
              <option value="http">HTTPS file</option>
            </select>
            <button type="button" onClick={run} disabled={verify.busy} data-testid="verify-domain">
              {verify.busy ? 'Checking…' : 'Verify'}
            </button>
          </>
        )}
        {canWrite && (
          <button type="button" class="danger" onClick={onRemove} aria-label={`Remove ${claim.domain}`}>
            Remove
          </button>
        )}
      </td>
    </tr>
  );
}
