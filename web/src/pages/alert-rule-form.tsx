import { useState } from 'preact/hooks';
import { api, orgBase, type Session } from '../api.js';
import { ErrorBanner } from '../components/ui.js';
import { FieldError, useAction } from '../components/form.js';

/** An alert rule as the console API returns it (docs/alerts.md). */
export interface AlertRule {
  id: string;
  name: string;
  target:
    | { kind: 'organization_spend'; amount_micro_usd: number; window: 'daily' | 'monthly' }
    | { kind: 'key_ceiling'; api_key_id: string }
    | { kind: 'limit'; limit_id: string }
    | { kind: 'limits_of_kind'; subject_kind: 'key' | 'member' | 'group' };
  thresholds: number[];
  destinations: Array<{ kind: 'slack' | 'signed'; url: string }>;
  enabled: boolean;
  created_at: string;
  signing_secret?: string;
}

type TargetKind = AlertRule['target']['kind'];

/** `50, 80,100` → [50, 80, 100]; anything not a number is left for the API to refuse. */
const parseThresholds = (text: string) =>
  text
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '')
    .map(Number);

function targetOf(kind: TargetKind, fields: { amount: string; window: string; id: string; subjectKind: string }) {
  if (kind === 'organization_spend')
    return { kind, amount_micro_usd: Math.round(Number(fields.amount) * 1_000_000), window: fields.window };
  if (kind === 'key_ceiling') return { kind, api_key_id: fields.id.trim() };
  if (kind === 'limit') return { kind, limit_id: fields.id.trim() };
  return { kind, subject_kind: fields.subjectKind };
}

/** The form that creates a rule: what it watches, its thresholds and one webhook destination. */
export function CreateAlertRuleForm(props: {
  session: Session;
  onCreated: (rule: AlertRule) => void;
  onCancel: () => void;
}) {
  const [name, setName] = useState('');
  const [kind, setKind] = useState<TargetKind>('organization_spend');
  const [amount, setAmount] = useState('100');
  const [windowKind, setWindowKind] = useState('monthly');
  const [id, setId] = useState('');
  const [subjectKind, setSubjectKind] = useState('member');
  const [thresholds, setThresholds] = useState('50, 80, 100');
  const [destinationKind, setDestinationKind] = useState<'slack' | 'signed'>('signed');
  const [url, setUrl] = useState('');
  const create = useAction();
  const submit = async (event: Event) => {
    event.preventDefault();
    let rule: AlertRule | undefined;
    await create.run(async () => {
      rule = await api<AlertRule>('POST', `${orgBase(props.session)}/alert_rules`, {
        name: name.trim(),
        target: targetOf(kind, { amount, window: windowKind, id, subjectKind }),
        thresholds: parseThresholds(thresholds),
        destinations: [{ kind: destinationKind, url: url.trim() }],
      });
    });
    if (rule) props.onCreated(rule);
  };
  return (
    <form class="card form-grid" onSubmit={submit} data-testid="create-alert-rule-form">
      <h2>New alert rule</h2>
      <label>
        Name
        <input name="name" required maxLength={200} value={name} onInput={(e) => setName(e.currentTarget.value)} />
        <FieldError error={create.error} param="name" />
      </label>
      <label>
        Watches
        <select name="target" value={kind} onChange={(e) => setKind(e.currentTarget.value as TargetKind)}>
          <option value="organization_spend">organization spend against a budget</option>
          <option value="key_ceiling">a key's monthly ceiling</option>
          <option value="limit">one spend limit, by id</option>
          <option value="limits_of_kind">every spend limit of a kind</option>
        </select>
        <FieldError error={create.error} param="target" />
      </label>
      {kind === 'organization_spend' && (
        <>
          <label>
            Budget (USD)
            <input
              name="amount"
              type="number"
              min={0.01}
              step={0.01}
              value={amount}
              onInput={(e) => setAmount(e.currentTarget.value)}
            />
          </label>
          <label>
            Window (UTC)
            <select name="window" value={windowKind} onChange={(e) => setWindowKind(e.currentTarget.value)}>
              <option value="daily">day</option>
              <option value="monthly">month</option>
            </select>
          </label>
        </>
      )}
      {(kind === 'key_ceiling' || kind === 'limit') && (
        <label>
          {kind === 'key_ceiling' ? 'API key id' : 'Limit id'}
          <input name="target_id" required value={id} onInput={(e) => setId(e.currentTarget.value)} />
        </label>
      )}
      {kind === 'limits_of_kind' && (
        <label>
          Limits of
          <select name="subject_kind" value={subjectKind} onChange={(e) => setSubjectKind(e.currentTarget.value)}>
            <option value="key">keys</option>
            <option value="member">members</option>
            <option value="group">groups</option>
          </select>
        </label>
      )}
      <label>
        Thresholds (% of the amount, comma separated)
        <input name="thresholds" value={thresholds} onInput={(e) => setThresholds(e.currentTarget.value)} />
        <FieldError error={create.error} param="thresholds" />
      </label>
      <label>
        Destination
        <select
          name="destination_kind"
          value={destinationKind}
          onChange={(e) => setDestinationKind(e.currentTarget.value as 'slack' | 'signed')}
        >
          <option value="signed">JSON signed with HMAC-SHA256</option>
          <option value="slack">Slack-compatible ({'{"text": …}'})</option>
        </select>
      </label>
      <label class="wide">
        Webhook URL
        <input
          name="url"
          type="url"
          required
          placeholder="https://hooks.example.com/…"
          value={url}
          onInput={(e) => setUrl(e.currentTarget.value)}
        />
        <FieldError error={create.error} param="destinations" />
      </label>
      <div class="wide">
        <ErrorBanner error={create.error} />
      </div>
      <div class="wide form-actions">
        <button type="button" onClick={props.onCancel}>
          Cancel
        </button>
        <button
          class="primary"
          type="submit"
          disabled={create.busy || name.trim() === ''}
          data-testid="create-alert-rule"
        >
          {create.busy ? 'Creating…' : 'Create rule'}
        </button>
      </div>
    </form>
  );
}
