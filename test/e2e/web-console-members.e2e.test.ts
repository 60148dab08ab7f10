import { describe, it, before } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { openTab, skipWithoutChromium } from './browser.js';
import { startConsoleSession } from './web-console-session.js';
import { suiteFixture } from '../support/suite-fixture.js';
import { waitFor } from '../support/chat-kit.js';

/** Every answer of 400 or more and every request that did not complete, on a tab. */
function watchFailures(tab: Page, failures: string[]): void {
  tab.on('response', (response) => {
    if (response.status() >= 400)
      failures.push(`${response.status()} ${response.request().method()} ${response.url()}`);
  });
  tab.on('requestfailed', (request) =>
    failures.push(`failed ${request.method()} ${request.url()} ${request.failure()?.errorText}`),
  );
}

/**
 * The Members page in headless Chromium on seeded people (an active member, an open invite, a
 * group): invite through the form and read the link, change a role, make a group, remove a
 * member, then open the link in a fresh tab, which joins as a member who sees only itself.
 * No request of either tab fails.
 */
describe('web console in headless Chromium: members', { skip: skipWithoutChromium }, () => {
  const env = suiteFixture(startConsoleSession);
  const failures: string[] = [];
  const base = () => `/v1/organizations/${env.org.id}`;

  before(async () => {
    const group = await env.api('POST', `${base()}/member_groups`, { name: 'backend', settings: { daily_usd: 50 } });
    assert.equal(group.status, 201, group.text);
    const dev = await env.api('POST', `${base()}/members`, { email: 'dev@example.org', group_id: group.json.id });
    const joined = await env.h.console('POST', '/v1/invites/accept', { body: { token: dev.json.invite_token } });
    assert.equal(joined.status, 201, joined.text);
    await env.api('POST', `${base()}/members`, { email: 'pending@example.org', role: 'admin' });
    watchFailures(env.page, failures);
    await env.signIn(env.page, env.org.token);
  });

  it('lists members, invites one with a link, changes a role, makes a group and removes a member', async () => {
    const page = env.page;
    await env.go('Members', '/members');
    const row = (email: string) => page.locator(`[data-testid=member-row][data-email="${email}"]`);
    await row('dev@example.org').waitFor();
    assert.match(await row('pending@example.org').innerText(), /invited, link valid until/);
    assert.equal((await row('dev@example.org').getByLabel('Group of dev@example.org').inputValue()) !== '', true);

    await page.fill('[data-testid=invite-form] input[name=email]', 'new@example.org');
    await page.getByTestId('invite').click();
    const link = (await page.getByTestId('secret').innerText()).trim();
    assert.match(link, /^https:\/\/[^/]+\/invite#gwi_[A-Za-z0-9_-]+$/);
    await env.shot('members-invite');
    await page.keyboard.press('Escape');
    await row('new@example.org').waitFor();

    await row('dev@example.org').getByTestId('member-role').selectOption('admin');
    await waitFor(async () => {
      const members = await env.api('GET', `${base()}/members`);
      return members.json.data.find((m: { email: string }) => m.email === 'dev@example.org').role === 'admin';
    });

    await page.fill('[data-testid=group-form] input[name=group-name]', 'frontend');
    await page.fill('[data-testid=group-form] textarea[name=settings]', '{"daily_usd": 5}');
    await page.getByTestId('create-group').click();
    await page.locator('[data-testid=group-row]', { hasText: 'frontend' }).waitFor();
    assert.match(await page.locator('[data-testid=group-row]', { hasText: 'frontend' }).innerText(), /"daily_usd":5/);

    await row('pending@example.org').getByTestId('remove-member').click();
    await page.getByTestId('confirm').click();
    await row('pending@example.org').waitFor({ state: 'detached' });
    await env.shot('members');

    // The link opened in a fresh tab joins as a member, who sees only itself and its own keys.
    const invitee = await openTab(env.browser, env.pageErrors);
    try {
      watchFailures(invitee.page, failures);
      await invitee.page.goto(link);
      await invitee.page.waitForURL('**/keys');
      assert.equal(new URL(invitee.page.url()).hash, '', 'the secret left the address bar');
      await invitee.page.getByTestId('empty').waitFor();
      await invitee.page.getByRole('link', { name: 'Members', exact: true }).click();
      await invitee.page.waitForURL('**/members');
      await invitee.page.locator('[data-testid=member-row][data-email="new@example.org"]').waitFor();
      assert.equal(await invitee.page.locator('[data-testid=member-row]').count(), 1);
      assert.equal(await invitee.page.getByTestId('invite-form').count(), 0, 'a member invites no one');
      assert.equal(await invitee.page.getByTestId('signed-in-as').innerText(), 'member: new@example.org');
      assert.equal(
        await invitee.page.getByRole('link', { name: 'Projects' }).count(),
        0,
        'pages it cannot open are not offered',
      );
      await invitee.page.getByRole('link', { name: 'Usage and cost', exact: true }).click();
      await invitee.page.waitForURL('**/usage');
      await invitee.page.getByRole('heading', { name: 'Usage and cost' }).waitFor();
      // The Logs page is offered (its export is confined to the member: test/console/members.test.ts);
      // not opened here: Chromium reports its streamed preview of an empty export as aborted in
      // about half the runs though the page draws the complete answer (docs/members.md).
      assert.equal(await invitee.page.getByRole('link', { name: 'Logs', exact: true }).count(), 1);
    } finally {
      await invitee.context.close();
    }
    assert.deepEqual(failures, []);
    assert.deepEqual(env.pageErrors, []);
  });
});
