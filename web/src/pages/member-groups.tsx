import { useState } from 'preact/hooks';
import { api } from '../api.js';
import { ConfirmDialog, ErrorBanner } from '../components/ui.js';
import { FieldError, useAction } from '../components/form.js';
import type { MemberGroup } from './members-api.js';

/** Parses the settings textarea: a JSON object, or an error naming what is wrong. */
function parseSettings(text: string): Record<string, unknown> {
  const value: unknown = text.trim() === '' ? {} : JSON.parse(text);
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw new Error('Settings must be a JSON object.');
  return value as Record<string, unknown>;
}

/** Groups of members and their shared settings (a JSON object the limits read). Owners and admins only. */
export function GroupsSection(props: { base: string; groups: MemberGroup[]; onChanged: () => void }) {
  const [name, setName] = useState('');
  const [settings, setSettings] = useState('');
  const [deleting, setDeleting] = useState<MemberGroup | null>(null);
  const create = useAction();
  const submit = async (event: Event) => {
    event.preventDefault();
    const ok = await create.run(async () => {
      await api('POST', `${props.base}/member_groups`, { name: name.trim(), settings: parseSettings(settings) });
    });
    if (ok) {
      setName('');
      setSettings('');
      props.onChanged();
    }
  };
  return (
    <>
      <h2>Groups</h2>
      <p class="muted">Members of a group share its settings. A member belongs to at most one group.</p>
      {props.groups.length > 0 && (
        <div class="table-wrap">
          <table data-testid="groups-table">
            <thead>
              <tr>
                <th>Group</th>
                <th>Settings</th>
                <th>
                  <span class="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {props.groups.map((group) => (
                <tr key={group.id} data-testid="group-row">
                  <td class="strong">{group.name}</td>
                  <td class="mono small">{JSON.stringify(group.settings)}</td>
                  <td class="actions">
                    <button type="button" class="danger" onClick={() => setDeleting(group)}>
                      Delete
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <form class="card form-grid" onSubmit={submit} data-testid="group-form">
        <label>
          Name
          <input
            name="group-name"
            required
            maxLength={200}
            value={name}
            onInput={(e) => setName(e.currentTarget.value)}
          />
          <FieldError error={create.error} param="name" />
        </label>
        <label>
          Settings <span class="muted">(JSON object, optional)</span>
          <textarea
            name="settings"
            rows={2}
            value={settings}
            onInput={(e) => setSettings(e.currentTarget.value)}
            placeholder='{"daily_usd": 50}'
          />
          <FieldError error={create.error} param="settings" />
        </label>
        <div class="wide">
          <ErrorBanner error={create.error} />
        </div>
        <div class="wide form-actions">
          <button class="primary" type="submit" disabled={create.busy || name.trim() === ''} data-testid="create-group">
            Create group
          </button>
        </div>
      </form>
      {deleting && (
        <ConfirmDialog
          title="Delete group?"
          message={
            <>
              <strong>{deleting.name}</strong> is deleted; its members stay, in no group.
            </>
          }
          confirm="Delete group"
          onConfirm={async () => {
            await api('DELETE', `${props.base}/member_groups/${encodeURIComponent(deleting.id)}`);
            props.onChanged();
          }}
          onClose={() => setDeleting(null)}
        />
      )}
    </>
  );
}
