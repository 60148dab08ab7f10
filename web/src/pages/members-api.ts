/** The console API's members and groups (docs/members.md), as the Members page reads them. */

export type MemberRole = 'owner' | 'admin' | 'member';
export const ROLES: MemberRole[] = ['owner', 'admin', 'member'];

export interface Member {
  id: string;
  email: string;
  name: string | null;
  role: MemberRole;
  status: 'invited' | 'active';
  group_id: string | null;
  created_at: string;
  joined_at: string | null;
  invite_expires_at: string | null;
}

/** An invite's answer: the member and, once, the link that carries its secret. */
export interface Invited extends Member {
  invite_token: string;
  invite_url: string;
}

export interface MemberGroup {
  id: string;
  name: string;
  settings: Record<string, unknown>;
  created_at: string;
}

export interface InviteAcceptance {
  member: Member;
  console_token: { token: string };
}
