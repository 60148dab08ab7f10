import { useState } from 'preact/hooks';
import { api, orgBase, permissions, type ListBody, type Session } from '../api.js';
import { ConfirmDialog, ErrorBanner, Loading, Modal, SecretBox, useLoad } from '../components/ui.js';
import { FieldError, useAction } from '../components/form.js';
import { formatDate } from '../format.js';
import { ROLES, type Invited, type Member, type MemberGroup, type MemberRole } from './members-api.js';
import { GroupsSection } from './member-groups.js';

/**
 * The people of the organization: members and open invites, their roles and groups. Owners and
 * admins (an admin-permission session) invite, change and remove; a member sees only itself.
 */
export function MembersPage({ session }: { session: Session }) {
  const base = orgBase(session);
  const { isAdmin } = permissions(session);
  const list = useLoad(async () => {
    const [members, groups] = await Promise.all([
      api<ListBody<Member>>('GET', `${base}/members`),
      isAdmin ? api<ListBody<MemberGroup>>('GET', `${base}/member_groups`) : Promise.resolve({ data: [] }),
    ]);
    return { members: members.data, groups: groups.data };
  }, [base, isAdmin]);
  const [invited, setInvited] = useState<Invited | null>(null);
  const [removing, setRemoving] = useState<Member | null>(null);
  const change = useAction();

  const update = (member: Member, body: Record<string, unknown>) =>
    change.run(async () => {
      await api('POST', `${base}/members/${encodeURIComponent(member.id)}`, body);
      list.reload();
    });
  const reissue = (member: Member) =>
    change.run(async () => {
      setInvited(await api<Invited>('POST', `${base}/members/${encodeURIComponent(member.id)}/invite`));
      list.reload();
    });
  const groups = list.data?.groups ?? [];

  return (
    <section>
      <header class="page-header">
        <div>
          <h1>Members</h1>
          <p class="muted">
            People of this organization. An invite is a link shown here (no mail is sent): whoever opens it joins with
            the role it names. <strong>Owners</strong> and <strong>admins</strong> manage members and everything else; a{' '}
            <strong>member</strong> sees only its own keys and usage.
          </p>
        </div>
      </header>
      {isAdmin && <InviteForm base={base} groups={groups} onInvited={(m) => (setInvited(m), list.reload())} />}
      <ErrorBanner error={list.error} onRetry={list.reload} />
      <ErrorBanner error={change.error} />
      {list.loading && !list.data && <Loading what="members" />}
      {list.data && (
        <div class="table-wrap">
          <table data-testid="members-table">
            <thead>
              <tr>
                <th>Member</th>
                <th>Role</th>
                <th>Group</th>
                <th>Status</th>
                <th>
                  <span class="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {list.data.members.map((member) => (
                <tr key={member.id} data-testid="member-row" data-email={member.email}>
                  <td>
                    <div class="strong">{member.name ?? member.email}</div>
                    {member.name && <div class="muted small">{member.email}</div>}
                  </td>
                  <td>
                    {isAdmin ? (
                      <select
                        aria-label={`Role of ${member.email}`}
                        data-testid="member-role"
                        value={member.role}
                        onChange={(e) => update(member, { role: e.currentTarget.value as MemberRole })}
                      >
                        {ROLES.map((role) => (
                          <option key={role} value={role}>
                            {role}
                          </option>
                        ))}
                      </select>
                    ) : (
                      <span class="badge">{member.role}</span>
                    )}
                  </td>
                  <td>
                    {isAdmin ? (
                      <select
                        aria-label={`Group of ${member.email}`}
                        value={member.group_id ?? ''}
                        onChange={(e) => update(member, { group_id: e.currentTarget.value || null })}
                      >
                        <option value="">none</option>
                        {groups.map((group) => (
                          <option key={group.id} value={group.id}>
                            {group.name}
                          </option>
                        ))}
                      </select>
                    ) : (
                      <span class="muted">{groups.find((g) => g.id === member.group_id)?.name ?? '—'}</span>
                    )}
                  </td>
                  <td>
                    {member.status === 'active' ? (
                      <span>joined {member.joined_at ? formatDate(member.joined_at) : ''}</span>
                    ) : (
                      <span class="muted">
                        invited, link valid until{' '}
                        {member.invite_expires_at ? formatDate(member.invite_expires_at) : '—'}
                      </span>
                    )}
                  </td>
                  <td class="actions">
                    {isAdmin && member.status === 'invited' && (
                      <button type="button" onClick={() => reissue(member)}>
                        New link
                      </button>
                    )}
                    {isAdmin && (
                      <button
                        type="button"
                        class="danger"
                        onClick={() => setRemoving(member)}
                        data-testid="remove-member"
                      >
                        Remove
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {isAdmin && list.data && <GroupsSection base={base} groups={groups} onChanged={list.reload} />}
      {invited && (
        <Modal title={`Invite for ${invited.email}`} onClose={() => setInvited(null)}>
          <p>
            Send this link to {invited.email}. It works once, until{' '}
            {invited.invite_expires_at ? formatDate(invited.invite_expires_at) : 'it expires'}, and is not shown again.
          </p>
          <SecretBox secret={invited.invite_url} />
        </Modal>
      )}
      {removing && (
        <ConfirmDialog
          title="Remove member?"
          message={
            <>
              <strong>{removing.email}</strong> is signed out at once and the keys they own are turned off (kept, with
              their usage, for an admin to hand to someone else).
            </>
          }
          confirm="Remove member"
          onConfirm={async () => {
            await api('DELETE', `${base}/members/${encodeURIComponent(removing.id)}`);
            list.reload();
          }}
          onClose={() => setRemoving(null)}
        />
      )}
    </section>
  );
}

function InviteForm(props: { base: string; groups: MemberGroup[]; onInvited: (member: Invited) => void }) {
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<MemberRole>('member');
  const [group, setGroup] = useState('');
  const invite = useAction();
  const submit = async (event: Event) => {
    event.preventDefault();
    let made: Invited | undefined;
    await invite.run(async () => {
      made = await api<Invited>('POST', `${props.base}/members`, {
        email: email.trim(),
        role,
        ...(group ? { group_id: group } : {}),
      });
    });
    if (made) {
      setEmail('');
      props.onInvited(made);
    }
  };
  return (
    <form class="card form-grid" onSubmit={submit} data-testid="invite-form">
      <h2>Invite</h2>
      <label>
        Email address
        <input
          name="email"
          type="email"
          required
          maxLength={320}
          value={email}
          onInput={(e) => setEmail(e.currentTarget.value)}
          placeholder="name@example.org"
        />
        <FieldError error={invite.error} param="email" />
      </label>
      <label>
        Role
        <select name="role" value={role} onChange={(e) => setRole(e.currentTarget.value as MemberRole)}>
          {ROLES.map((r) => (
            <option key={r} value={r}>
              {r}
            </option>
          ))}
        </select>
      </label>
      <label>
        Group <span class="muted">(optional)</span>
        <select name="group" value={group} onChange={(e) => setGroup(e.currentTarget.value)}>
          <option value="">none</option>
          {props.groups.map((g) => (
            <option key={g.id} value={g.id}>
              {g.name}
            </option>
          ))}
        </select>
      </label>
      <div class="wide">
        <ErrorBanner error={invite.error} />
      </div>
      <div class="wide form-actions">
        <button class="primary" type="submit" disabled={invite.busy || email.trim() === ''} data-testid="invite">
          {invite.busy ? 'Inviting…' : 'Create invite link'}
        </button>
      </div>
    </form>
  );
}
