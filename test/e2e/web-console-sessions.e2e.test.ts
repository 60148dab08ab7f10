import { describe, it, before } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { waitFor } from '../support/chat-kit.js';
import { seedSessions, SEEDED_MEMBERS, type SeededSessions } from '../support/seed-sessions.js';
import { openTab, skipWithoutChromium } from './browser.js';
import { ARTIFACTS, startConsoleSession } from './web-console-session.js';
import { suiteFixture } from '../support/suite-fixture.js';

/**
 * The Sessions pages in a real browser on a seeded team (3 members, 5 keys, 40 sessions of Claude
 * Code, Codex and opencode): the list against the API's figures, the filters, a session's
 * timeline, and a share link opened without signing in, then revoked. Every request the browser
 * makes answers below 400 (the revoked link's 410 excepted, in its own tab).
 * UPDATE_SCREENSHOTS=1 also refreshes docs/images/sessions.png and docs/images/session.png.
 */
const usd = (micro: number) => {
  const value = micro / 1e6;
  const abs = Math.abs(value);
  const digits = abs >= 1 ? 2 : abs >= 0.01 ? 4 : 6;
  return `$${value.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: digits })}`;
};

/** Every response of `page` at 400 or above, and every request that failed outright. */
function failedRequests(page: Page): string[] {
  const failed: string[] = [];
  page.on('response', (response) => {
    if (response.status() >= 400) failed.push(`${response.status()} ${response.url()}`);
  });
  page.on('requestfailed', (request) => failed.push(`failed ${request.url()}: ${request.failure()?.errorText}`));
  return failed;
}

/** The documentation's screenshots: wide enough for every column of the list, the top of the page only. */
async function wideShot(page: Page, path: string) {
  const viewport = page.viewportSize();
  await page.setViewportSize({ width: 1760, height: 1000 });
  await page.screenshot({ path, fullPage: false });
  if (viewport) await page.setViewportSize(viewport);
}

describe('web console in headless Chromium: sessions', { skip: skipWithoutChromium }, () => {
  const env = suiteFixture(startConsoleSession);
  let seeded: SeededSessions;
  let failed: string[];
  const keyNames = ['ada-laptop', 'ada-ci', 'grace-laptop', 'grace-devbox', 'linus-laptop'];

  before(async () => {
    const keys = [];
    for (const name of keyNames) keys.push((await env.h.createKey(env.org, { name })).id);
    seeded = await seedSessions(env.h.running.store, env.org.id, keys);
    failed = failedRequests(env.page);
    await env.signIn(env.page, env.org.token);
  });

  it('lists the 40 sessions with the figures the API gives, and filters them by member and agent', async () => {
    const api = await env.api('GET', `/v1/organizations/${env.org.id}/sessions?limit=100`);
    assert.equal(api.status, 200, api.text);
    assert.equal(api.json.data.length, 40);
    await env.go('Sessions', '/sessions');
    const table = env.page.getByTestId('sessions-table');
    await table.waitFor();
    const rows = table.getByTestId('session-row');
    assert.equal(await rows.count(), 40);
    for (const [i, session] of api.json.data.slice(0, 5).entries()) {
      const text = await rows.nth(i).innerText();
      assert.ok(text.includes(usd(session.cost_micro_usd)), `${text} shows ${usd(session.cost_micro_usd)}`);
      assert.ok(text.includes(session.members[0].email), text);
      assert.ok(text.includes(session.api_keys[0].name), text);
    }
    const image = join(ARTIFACTS, '20-sessions.png');
    await wideShot(env.page, image);
    if (process.env.UPDATE_SCREENSHOTS === '1') copyFileSync(image, join('docs', 'images', 'sessions.png'));

    const grace = seeded.memberIds[1]!;
    const graceSessions = new Set(seeded.rows.filter((r) => r.member_id === grace).map((r) => r.session_id));
    await env.page.selectOption('select[name=member_id]', grace);
    await env.page.getByRole('button', { name: 'Apply filters' }).click();
    await waitFor(async () => (await rows.count()) === graceSessions.size, {
      what: `${graceSessions.size} of Grace's sessions`,
    });
    for (const text of await rows.allInnerTexts()) assert.ok(text.includes(SEEDED_MEMBERS[1].email), text);

    await env.page.selectOption('select[name=member_id]', '');
    await env.page.selectOption('select[name=agent]', 'codex_cli_rs');
    await env.page.getByRole('button', { name: 'Apply filters' }).click();
    const codex = new Set(seeded.rows.filter((r) => r.agent!.startsWith('codex_cli_rs/')).map((r) => r.session_id));
    await waitFor(async () => (await rows.count()) === codex.size, { what: `${codex.size} Codex sessions` });
    for (const text of await rows.allInnerTexts()) assert.match(text, /Codex 0\.46\.0/);
  });

  it("shows a session's requests on a timeline with tokens, cost, savings, latency, status and strategies", async () => {
    await env.page.getByTestId('session-row').first().click();
    await env.page.waitForURL(/\/sessions\/[^/]+$/);
    const id = (await env.page.getByTestId('session-id').innerText()).trim();
    const api = await env.api('GET', `/v1/organizations/${env.org.id}/sessions/${encodeURIComponent(id)}`);
    assert.equal(api.status, 200, api.text);
    const requests = env.page.getByTestId('session-request');
    await requests.first().waitFor();
    assert.equal(await requests.count(), api.json.requests.length);
    assert.equal(await env.page.getByTestId('timeline-bar').count(), api.json.requests.length);
    const totals = await env.page.getByTestId('session-totals').innerText();
    assert.ok(totals.includes(usd(api.json.cost_micro_usd)), totals);
    assert.ok(totals.includes(usd(api.json.savings_micro_usd)), totals);
    for (const [i, request] of api.json.requests.entries()) {
      const text = await requests.nth(i).innerText();
      assert.ok(text.includes(usd(request.cost_micro_usd)), `${text} shows ${usd(request.cost_micro_usd)}`);
      assert.ok(text.includes(String(request.status_code)), text);
      assert.equal(
        (await requests.nth(i).getByTestId('strategies').innerText()).trim(),
        request.compression_strategies.length ? request.compression_strategies.join(', ') : '—',
      );
    }
    const image = join(ARTIFACTS, '21-session.png');
    await wideShot(env.page, image);
    if (process.env.UPDATE_SCREENSHOTS === '1') copyFileSync(image, join('docs', 'images', 'session.png'));
  });

  it('makes a share link that opens the session without signing in, and stops opening once revoked', async () => {
    await env.page.getByTestId('make-share-link').click();
    const made = env.page.getByTestId('share-link-made');
    await made.waitFor();
    const link = (await made.locator('code').innerText()).trim();
    assert.match(link, /\/shared-session#gws_/);
    const sessionId = (await env.page.getByTestId('session-id').innerText()).trim();

    const errors: string[] = [];
    const { context, page: outsider } = await openTab(env.browser, errors);
    try {
      const outsiderFailed = failedRequests(outsider);
      await outsider.goto(link);
      await outsider.getByTestId('session-totals').waitFor();
      assert.ok((await outsider.innerText('main')).includes(sessionId));
      assert.equal(await outsider.getByText('ada@acme.test').count(), 0, 'no member shown');
      assert.equal(await outsider.getByRole('link', { name: 'Sessions' }).count(), 0, 'no console navigation');
      assert.deepEqual(outsiderFailed, []);
      assert.deepEqual(errors, []);

      await env.page.getByTestId('revoke-share-link').first().click();
      await env.page.locator('[data-testid=share-link-row][data-status=revoked]').waitFor();
      await outsider.reload();
      const banner = outsider.getByTestId('error');
      await banner.waitFor();
      assert.match(await banner.innerText(), /\(410\).*revoked/);
    } finally {
      await context.close();
    }
  });

  it('no request of the signed-in tab failed, and no script error', () => {
    assert.deepEqual(failed, []);
    assert.deepEqual(env.pageErrors, []);
  });
});
