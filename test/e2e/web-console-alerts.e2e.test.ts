import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startHarness, type Harness } from '../support/gateway-harness.js';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';
import { ensureWebBuilt } from '../support/web-build.js';
import { waitFor } from '../support/chat-kit.js';
import { launchChromium, openTab, skipWithoutChromium } from './browser.js';
import { ARTIFACTS } from './web-console-session.js';

/**
 * The Alerts page in headless Chromium: a rule created through the form (its secret shown once),
 * listed; an alert it fires listed with its delivery done; no request of the page fails.
 */
describe('web console alerts page in headless Chromium', { skip: skipWithoutChromium }, () => {
  let h: Harness;
  let hook: WebhookReceiver;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let org: { id: string; token: string };
  const pageErrors: string[] = [];
  const failedRequests: string[] = [];

  before(async () => {
    ensureWebBuilt();
    mkdirSync(ARTIFACTS, { recursive: true });
    hook = await startWebhookReceiver();
    h = await startHarness({
      env: { GATEWAY_WEBHOOK_ALLOW_PRIVATE: '1', GATEWAY_OUTBOX_POLL_MS: '50' },
    });
    org = await h.organization('alerts-e2e');
    browser = await launchChromium();
    ({ context, page } = await openTab(browser, pageErrors));
    page.on('response', (response) => {
      if (response.status() >= 400) failedRequests.push(`${response.status()} ${response.url()}`);
    });
    page.on('requestfailed', (request) => failedRequests.push(`failed ${request.url()}`));
  });
  after(async () => {
    await context?.close();
    await browser?.close();
    await h?.stop();
    await hook?.close();
  });

  it('creates a rule through the form, shows its secret once, and lists the alert it fired', async () => {
    await page.goto(`${h.running.urls.console}/sign-in`);
    await page.fill('input[name=token]', org.token);
    await page.click('button[type=submit]');
    await page.waitForURL('**/keys');
    await page.getByRole('link', { name: 'Alerts', exact: true }).click();
    await page.waitForURL('**/alerts');
    await page.getByText('No alert rules yet').waitFor();

    await page.getByTestId('new-alert-rule').click();
    await page.fill('input[name=name]', 'members at 80 %');
    await page.selectOption('select[name=target]', 'limits_of_kind');
    await page.selectOption('select[name=subject_kind]', 'member');
    await page.fill('input[name=thresholds]', '80, 100');
    await page.fill('input[name=url]', hook.url);
    await page.getByTestId('create-alert-rule').click();
    await page.getByTestId('secret').waitFor();
    assert.match((await page.getByTestId('secret').innerText()).trim(), /^whsec_/);
    await page.keyboard.press('Escape');
    const row = page.getByTestId('alert-rule-row');
    await row.waitFor();
    assert.match(await row.innerText(), /members at 80 %/);
    assert.match(await row.innerText(), /Every member limit/);
    assert.match(await row.innerText(), /80 %, 100 %/);

    // The page answers a reload on its own path (the server knows /alerts as a client route).
    await h.running.alerts.evaluateAlerts(org.id, [
      {
        limitId: 'lim-1',
        subject: { kind: 'member', id: 'mem-1' },
        window: 'daily',
        windowStart: Date.UTC(2026, 11, 7),
        limitMicroUsd: 50_000_000,
        spentMicroUsd: 41_000_000,
      },
    ]);
    await waitFor(() => hook.requests.some((r) => r.status === 200), { timeoutMs: 10_000, what: 'delivery' });
    await page.reload();
    const fired = page.getByTestId('fired-alert-row');
    await fired.waitFor();
    const text = await fired.innerText();
    assert.match(text, /members at 80 %/);
    assert.match(text, /limit lim-1/);
    assert.match(text, /\$41\.00 \/ \$50\.00/);
    assert.match(text, /done/);
    await page.screenshot({ path: join(ARTIFACTS, 'alerts.png'), fullPage: true });
    assert.deepEqual(pageErrors, []);
    assert.deepEqual(failedRequests, []);
  });
});
