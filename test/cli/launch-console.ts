import assert from 'node:assert/strict';
import type { ServedGateway } from '../support/served-gateway.js';

/**
 * What the console API says of one `gateway launch` run: the session listed with its agent, its
 * member and the launch key, that key owned by the member `email` (an owner), the member's usage holding
 * the session's requests.
 */
export async function assertLaunchInConsole(
  served: ServedGateway,
  run: { session: string | undefined; keyId: string | undefined },
  agent: string,
  email: string,
): Promise<void> {
  const consoleApi = (path: string) =>
    served.client.call(`${served.serve.urls.console}/v1/organizations/${served.organizationId}${path}`, 'GET', {
      token: served.consoleToken,
    });
  const members = await consoleApi('/members');
  const member = members.json.data.find((m: { email: string }) => m.email === email);
  assert.equal(member?.role, 'owner', members.text);
  const sessions = await consoleApi(`/sessions?agent=${agent}`);
  assert.equal(sessions.status, 200, sessions.text);
  const session = sessions.json.data.find((s: { id: string }) => s.id === run.session);
  assert.ok(session, `session ${run.session} listed: ${sessions.text.slice(0, 500)}`);
  assert.equal(session.agent, agent);
  assert.ok(session.requests >= 2);
  assert.deepEqual(session.api_key_ids, [run.keyId]);
  assert.deepEqual(
    session.members.map((m: { id: string; email: string }) => [m.id, m.email]),
    [[member.id, email]],
    'the session names its member',
  );
  const byMember = await consoleApi(`/sessions?member_id=${member.id}`);
  assert.ok(byMember.json.data.some((s: { id: string }) => s.id === run.session));
  const key = await consoleApi(`/api_keys/${run.keyId}`);
  assert.equal(key.json.member_id, member.id);
  const own = await consoleApi(`/usage/summary?period=24h&member_id=${member.id}`);
  assert.ok(own.json.totals.requests >= session.requests, "the session's requests are the member's");
}
