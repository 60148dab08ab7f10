import { useState } from 'preact/hooks';
import { api, orgBase, permissions, withQuery, type ListBody, type Session } from '../api.js';
import { ConfirmDialog, Empty, ErrorBanner, Loading, Modal, SecretBox, useLoad } from '../components/ui.js';
import { formatDate, formatUsd, microToUsd } from '../format.js';
import { CreateAlertRuleForm, type AlertRule } from './alert-rule-form.js';

/** A fired alert as GET …/alerts returns it. */
interface FiredAlert {
  id: string;
  rule_id: string;
  rule_name: string | null;
  subject: { kind: 'organization' | 'key' | 'limit'; id: string | null };
  threshold_percent: number;
  window: 'daily' | 'monthly' | 'lifetime';
  window_start: string | null;
  limit_micro_usd: number;
  spent_micro_usd: number;
  fired_at: string;
  delivery: 'pending' | 'failed' | 'done';
}

const FIRED_PAGE = 50;

function describeTarget(target: AlertRule['target']): string {
  switch (target.kind) {
    case 'organization_spend':
      return `Organization spend: ${formatUsd(microToUsd(target.amount_micro_usd))} a ${target.window === 'daily' ? 'day' : 'month'}`;
    case 'key_ceiling':
      return `Monthly ceiling of key ${target.api_key_id}`;
    case 'limit':
      return `Limit ${target.limit_id}`;
    case 'limits_of_kind':
      return `Every ${target.subject_kind} limit`;
  }
}

function describeSubject(subject: FiredAlert['subject']): string {
  return subject.kind === 'organization' ? 'organization' : `${subject.kind} ${subject.id}`;
}

/** Alert rules (thresholds on spend, webhook destinations) and the alerts they fired. */
export function AlertsPage({ session }: { session: Session }) {
  const { canWrite } = permissions(session);
  const rules = useLoad(
    () => api<ListBody<AlertRule>>('GET', `${orgBase(session)}/alert_rules`),
    [session.organization.id],
  );
  const fired = useLoad(
    () => api<ListBody<FiredAlert>>('GET', withQuery(`${orgBase(session)}/alerts`, { limit: FIRED_PAGE })),
    [session.organization.id],
  );
  const [creating, setCreating] = useState(false);
  const [created, setCreated] = useState<AlertRule | null>(null);
  const [deleting, setDeleting] = useState<AlertRule | null>(null);

  return (
    <section>
      <header class="page-header">
        <div>
          <h1>Alerts</h1>
          <p class="muted">
            A rule watches organization spend, a key's ceiling or spend limits, and posts to a webhook once per
            threshold and window (UTC). Signed destinations carry an HMAC-SHA256 signature; the secret is shown once.
          </p>
        </div>
      </header>
      {canWrite && !creating && (
        <div class="toolbar">
          <button class="primary" type="button" onClick={() => setCreating(true)} data-testid="new-alert-rule">
            Create rule
          </button>
        </div>
      )}
      {creating && (
        <CreateAlertRuleForm
          session={session}
          onCancel={() => setCreating(false)}
          onCreated={(rule) => {
            setCreating(false);
            setCreated(rule);
            rules.reload();
          }}
        />
      )}
      <h2>Rules</h2>
      <ErrorBanner error={rules.error} onRetry={rules.reload} />
      {rules.loading && !rules.data && <Loading what="alert rules" />}
      {rules.data && rules.data.data.length === 0 && (
        <Empty title="No alert rules yet">Create one to hear about spend at 50, 80 or 100 % of a budget.</Empty>
      )}
      {rules.data && rules.data.data.length > 0 && (
        <div class="table-wrap">
          <table data-testid="alert-rules-table">
            <thead>
              <tr>
                <th>Name</th>
                <th>Watches</th>
                <th>Thresholds</th>
                <th>Destinations</th>
                <th>
                  <span class="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {rules.data.data.map((rule) => (
                <tr key={rule.id} data-testid="alert-rule-row">
                  <td>
                    <div class="strong">
                      {rule.name} {!rule.enabled && <span class="badge">off</span>}
                    </div>
                    <div class="muted small mono">{rule.id}</div>
                  </td>
                  <td>{describeTarget(rule.target)}</td>
                  <td>{rule.thresholds.map((t) => `${t} %`).join(', ')}</td>
                  <td>
                    {rule.destinations.map((d, i) => (
                      <div key={i} class="small">
                        <span class="badge">{d.kind}</span> <span class="mono">{d.url}</span>
                      </div>
                    ))}
                  </td>
                  <td class="actions">
                    {canWrite && (
                      <button type="button" class="danger" onClick={() => setDeleting(rule)}>
                        Delete
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <h2>Fired alerts</h2>
      <ErrorBanner error={fired.error} onRetry={fired.reload} />
      {fired.loading && !fired.data && <Loading what="fired alerts" />}
      {fired.data && fired.data.data.length === 0 && <Empty title="No alert has fired" />}
      {fired.data && fired.data.data.length > 0 && (
        <div class="table-wrap">
          <table data-testid="fired-alerts-table">
            <thead>
              <tr>
                <th>Fired</th>
                <th>Rule</th>
                <th>What</th>
                <th>Threshold</th>
                <th>Spent / amount</th>
                <th>Window</th>
                <th>Delivery</th>
              </tr>
            </thead>
            <tbody>
              {fired.data.data.map((alert) => (
                <tr key={alert.id} data-testid="fired-alert-row">
                  <td>{formatDate(alert.fired_at)}</td>
                  <td>{alert.rule_name ?? <span class="mono">{alert.rule_id}</span>}</td>
                  <td>{describeSubject(alert.subject)}</td>
                  <td>{alert.threshold_percent} %</td>
                  <td>
                    {formatUsd(microToUsd(alert.spent_micro_usd))} / {formatUsd(microToUsd(alert.limit_micro_usd))}
                  </td>
                  <td>
                    {alert.window === 'lifetime'
                      ? 'lifetime'
                      : `${alert.window} from ${formatDate(alert.window_start, false)}`}
                  </td>
                  <td>
                    <span class="badge">{alert.delivery}</span>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          {fired.data.has_more && <p class="muted small">The {FIRED_PAGE} newest are shown.</p>}
        </div>
      )}
      {created?.signing_secret && (
        <Modal title={`Rule "${created.name}" created`} onClose={() => setCreated(null)}>
          <p>
            Copy the signing secret now: this is the only time it is shown. A receiver checks each signed alert with it
            (docs/alerts.md).
          </p>
          <SecretBox secret={created.signing_secret} />
        </Modal>
      )}
      {deleting && (
        <ConfirmDialog
          title="Delete alert rule?"
          message={
            <>
              <strong>{deleting.name}</strong> stops watching, and the alerts it fired leave the list.
            </>
          }
          confirm="Delete rule"
          onConfirm={async () => {
            await api('DELETE', `${orgBase(session)}/alert_rules/${encodeURIComponent(deleting.id)}`);
            rules.reload();
            fired.reload();
          }}
          onClose={() => setDeleting(null)}
        />
      )}
    </section>
  );
}
