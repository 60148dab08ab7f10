import { describe, it, before } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { waitFor } from '../support/chat-kit.js';
import { collectorClient } from '../support/collector-client.js';
import { openTab, skipWithoutChromium } from './browser.js';
import { seedSavings } from './seed-savings.js';
import { ARTIFACTS, startConsoleSession } from './web-console-session.js';
import { suiteFixture } from '../support/suite-fixture.js';

/**
 * The web console in a real browser, continued (web-console.e2e.test.ts has keys, usage, logs and
 * tools): projects with their domains, proxy settings and components, API tokens with a read tab,
 * and the Savings page against the API's figures; UPDATE_SCREENSHOTS=1 also refreshes
 * docs/images/savings.png.
 */
const usd = (micro: number) =>
  `$${(micro / 1e6).toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`;

describe('web console in headless Chromium: projects, API tokens and savings', { skip: skipWithoutChromium }, () => {
  const env = suiteFixture(startConsoleSession);
  let readerSecret = '';

  before(async () => {
    // The read tab below expects the key the admin made in web-console.e2e.test.ts.
    await env.h.createKey(env.org, { name: 'e2e key' });
    await env.signIn(env.page, env.org.token);
  });

  it('Projects: creates a project, claims domains (409 when taken), verifies one by DNS after a 422', async () => {
    // Another organization holds a verified claim (local names are verified at once in development mode).
    const rival = await env.h.organization();
    const taken = await env.h.console('POST', '/v1/projects', {
      token: rival.token,
      body: { slug: 'rival', name: 'Rival', domains: ['taken.test'] },
    });
    assert.equal(taken.status, 201, taken.text);

    await env.go('Projects', '/projects');
    await env.page.getByTestId('empty').waitFor();
    await env.page.getByTestId('new-project').click();
    await env.page.fill('[data-testid=create-project-form] input[name=name]', 'Shop');
    assert.equal(await env.page.inputValue('[data-testid=create-project-form] input[name=slug]'), 'shop');
    await env.page.fill('[data-testid=create-project-form] textarea[name=domains]', 'shop.test');
    await env.page.getByTestId('create-project').click();
    await env.page.waitForURL(/\/projects\/[^/]+$/);
    const domains = env.page.getByTestId('domains-card');
    await domains.locator('[data-testid=domain-row][data-domain="shop.test"]').getByText('Verified').waitFor();

    await domains.locator('input[name=domain]').fill('taken.test');
    await domains.getByTestId('add-domain').click();
    const conflict = domains.locator('[data-testid=field-error][data-param=domains]');
    await conflict.waitFor();
    assert.match(await conflict.innerText(), /verified by another organization/);

    await domains.locator('input[name=domain]').fill('www.acme-e2e.com');
    await domains.getByTestId('add-domain').click();
    const pending = domains.locator('[data-testid=domain-row][data-domain="www.acme-e2e.com"]');
    await pending.getByText('Pending').waitFor();
    await pending.getByText('How to verify').click();
    await pending.getByTestId('verify-domain').click();
    const failure = pending.getByTestId('error');
    await failure.waitFor();
    assert.match(await failure.innerText(), /\(422\).*no TXT record at _gateway-challenge\.www\.acme-e2e\.com/);
    await env.shot('08-domain-422');
    const projectId = new URL(env.page.url()).pathname.split('/').pop()!;
    const claim = (await env.api('GET', `/v1/projects/${projectId}/domains/www.acme-e2e.com`)).json;
    assert.ok((await pending.innerText()).includes(claim.verification.token), 'the token to publish is shown');
    env.dns.setTxt(claim.verification.dns_record.name, [claim.verification.token]);
    await pending.locator('select').selectOption('dns');
    await pending.getByTestId('verify-domain').click();
    await pending.getByText('Verified').waitFor();
    assert.match(await pending.innerText(), /DNS TXT record/);

    await env.page.getByTestId('edit-project').click();
    await env.page.fill('[data-testid=edit-project-form] input[name=name]', 'Shop EU');
    await env.page.getByTestId('save-project').click();
    await env.page.getByRole('heading', { name: 'Shop EU' }).waitFor();
  });

  it('Projects: proxy settings validated as typed; a regex RE2 cannot run in linear time is refused (400), a fixed one is created and activated', async () => {
    const card = env.page.getByTestId('proxy-card');
    await card.getByTestId('new-revision').click();
    const editor = card.getByTestId('proxy-editor');
    await editor.getByLabel('Backend 1 address').fill('origin.example.com:443');
    await editor.getByTestId('add-route').click();
    await editor.getByLabel('Route 1 path is a regular expression').check();
    await editor.getByLabel('Route 1 path', { exact: true }).fill('^/(?=admin)');
    const validation = editor.getByTestId('proxy-validation');
    await editor.locator('[data-testid=proxy-validation][data-state=invalid]').waitFor();
    const pathError = editor.locator('[data-testid=field-error][data-param="routes[0].path"]');
    await pathError.waitFor();
    assert.match(await pathError.innerText(), /not a regular expression RE2 accepts/);
    assert.equal(await editor.getByLabel('Route 1 path', { exact: true }).getAttribute('aria-invalid'), 'true');
    assert.ok(await editor.getByTestId('create-revision').isDisabled(), 'an invalid draft cannot be created');
    await env.shot('09-proxy-invalid-regex');
    await editor.getByLabel('Route 1 path', { exact: true }).fill('^/api/v[0-9]+/');
    await editor.locator('[data-testid=proxy-validation][data-state=valid]').waitFor();
    assert.match(await validation.innerText(), /Valid/);
    await editor.locator('input[name=description]').fill('first revision');
    await editor.locator('input[name=is_active]').check();
    await editor.getByTestId('create-revision').click();
    const first = card.locator('[data-testid=revision-row][data-revision="1"]');
    await first.getByText('Active').waitFor();
    assert.match(await card.getByTestId('revision-detail').innerText(), /\^\/api\/v\[0-9\]\+\/.*regex/s);

    await first.getByRole('button', { name: 'Copy' }).click();
    await editor.locator('input[name=description]').fill('second revision');
    await editor.locator('[data-testid=proxy-validation][data-state=valid]').waitFor();
    await editor.getByTestId('create-revision').click();
    const second = card.locator('[data-testid=revision-row][data-revision="2"]');
    await second.getByText('inactive').waitFor();
    await second.getByRole('button', { name: 'Activate' }).click();
    await second.getByText('Active').waitFor();
    await first.getByText('inactive').waitFor();
    await second.getByRole('button', { name: 'Edit the description of revision 2' }).click();
    await second.getByLabel('Description of revision 2').fill('EU split');
    await second.getByRole('button', { name: 'Save' }).click();
    await second.getByText('EU split').waitFor();
  });

  it('Projects: components from the catalogue by category; a private webhook URL is refused under its field', async () => {
    const card = env.page.getByTestId('components-card');
    await card.getByTestId('add-component').click();
    const picker = card.getByTestId('component-picker');
    await picker.locator('select[name=subcategory]').selectOption('server_side_tagging');
    await waitFor(async () => (await picker.getByTestId('catalogue-item').count()) === 1, { what: 'one webhook' });
    await picker.getByRole('button', { name: 'Choose Webhook' }).click();
    const form = card.getByTestId('component-form');
    await form.locator('input[name="settings.url"]').fill('https://127.0.0.1/hook');
    await form.getByTestId('save-component').click();
    const urlError = form.locator('[data-testid=field-error][data-param="settings.url"]');
    await urlError.waitFor();
    assert.match(await urlError.innerText(), /settings\.url/);
    await form.getByRole('button', { name: 'Cancel' }).click();
    await picker.locator('select[name=subcategory]').selectOption('warehouse');
    await picker.getByRole('button', { name: 'Choose Warehouse' }).click();
    await form.locator('input[name="settings.event_types"][value=page]').check();
    await form.getByTestId('save-component').click();
    const row = card.locator('[data-testid=component-row][data-component="gateway/warehouse"]');
    await row.getByText('Active').waitFor();
    assert.match(await row.innerText(), /"event_types":\["page"\]/);

    const collector = collectorClient(env.h.running.urls.collector, env.h.ca);
    const sent = await collector.call('POST', 'shop.test', {
      body: { data_collection: { events: [{ type: 'page', data: { path: '/checkout' } }] } },
    });
    await collector.close();
    assert.equal(sent.status, 202, sent.text);
    const events = env.page.getByTestId('events-card');
    await waitFor(
      async () => {
        await events.getByRole('button', { name: 'Refresh' }).click();
        return (await events.getByText('/checkout').count()) > 0;
      },
      { what: 'the collected event', timeoutMs: 10_000, intervalMs: 300 },
    );
    await env.shot('10-project');

    await row.getByRole('button', { name: 'Edit' }).click();
    await form.locator('input[name=active]').uncheck();
    await form.getByTestId('save-component').click();
    await row.getByText('Inactive').waitFor();
    await row.getByRole('button', { name: 'Remove' }).click();
    await env.page.getByTestId('confirm').click();
    await row.waitFor({ state: 'detached' });
  });

  it('API tokens: creates a read token, shown once with a copy button', async () => {
    await env.go('API tokens', '/tokens');
    const own = env.page.locator('[data-testid=token-row][data-token-name=test]');
    await own.getByText('this tab').waitFor();
    await env.page.getByTestId('new-token').click();
    await env.page.fill('[data-testid=create-token-form] input[name=name]', 'reader');
    await env.page.selectOption('[data-testid=create-token-form] select[name=permission]', 'read');
    await env.page.fill('[data-testid=create-token-form] input[name=expires_in_days]', '7');
    await env.page.getByTestId('create-token').click();
    readerSecret = (await env.page.getByTestId('secret').innerText()).trim();
    assert.match(readerSecret, /^gwc_/);
    assert.ok(await env.page.getByTestId('copy').isVisible());
    await env.page.keyboard.press('Escape');
    const row = env.page.locator('[data-testid=token-row][data-token-name=reader]');
    assert.match(await row.innerText(), /read/);
    assert.ok(!(await row.innerText()).includes(readerSecret), 'the secret is never listed');
    await env.shot('11-tokens');
  });

  it('a read token sees every page and can change nothing; revoked, it signs its tab out', async () => {
    const reader = await openTab(env.browser, env.pageErrors);
    try {
      const tab = reader.page;
      await env.signIn(tab, readerSecret);
      await tab.getByTestId('read-only').waitFor();
      await tab.locator('[data-testid=key-row][data-key-name="e2e key"]').waitFor();
      for (const write of ['Create key', 'Edit', 'Reveal', 'Delete', 'Deactivate'])
        assert.equal(await tab.getByRole('button', { name: write }).count(), 0, write);
      await env.go('Projects', '/projects', tab);
      await tab.getByTestId('project-detail').waitFor();
      await tab.getByTestId('revision-row').first().waitFor();
      for (const write of ['Create project', 'Edit', 'Delete', 'New revision', 'Add component', 'Verify', 'Activate'])
        assert.equal(await tab.getByRole('button', { name: write, exact: true }).count(), 0, write);
      await env.go('Gateway tools', '/tools', tab);
      await tab.getByTestId('tool-card').first().waitFor();
      assert.equal(await tab.getByTestId('save-tool').count(), 0);
      assert.ok(await tab.locator('[data-tool=gateway_calculator] input[name=active]').isDisabled());
      await env.go('API tokens', '/tokens', tab);
      await tab.getByText('Managing API tokens needs an admin token').waitFor();
      await env.go('Savings', '/savings', tab);
      await tab.getByTestId('savings-totals').waitFor();

      // The admin revokes the reader's token: the reader's next request signs its tab out.
      await env.go('API tokens', '/tokens');
      await env.page
        .locator('[data-testid=token-row][data-token-name=reader]')
        .getByRole('button', { name: 'Revoke' })
        .click();
      await env.page.getByTestId('confirm').click();
      await env.page.locator('[data-testid=token-row][data-token-name=reader]').waitFor({ state: 'detached' });
      await tab.getByRole('link', { name: 'API keys', exact: true }).click();
      await tab.waitForURL('**/sign-in');
      assert.match(await tab.locator('.banner.info').innerText(), /Signed out: Invalid console token/);
      assert.equal(await tab.evaluate('sessionStorage.length'), 0, 'the revoked token is forgotten');
    } finally {
      await reader.context.close();
    }
  });

  it('Savings: compression and caching savings per key, model and day next to spend, estimates marked', async () => {
    const acme = await env.h.organization('acme');
    const key = async (name: string, body: Record<string, unknown> = {}) =>
      (await env.h.createKey(acme, { name, ...body })).id;
    const keys = {
      claudeCode: await key('claude-code-platform', { type: 'coding_agent', coding_assistant: 'claude_code' }),
      codex: await key('codex-ci', { type: 'coding_agent', coding_assistant: 'codex' }),
      backend: await key('backend-prod'),
      support: await key('support-bot'),
    };
    const rows = await seedSavings(env.h.running.store, acme.id, keys);
    assert.ok(rows > 3_000, `${rows} usage rows seeded`);
    const expected = (
      await env.h.console('GET', `/v1/organizations/${acme.id}/usage/savings?period=30d&group_by=api_key`, {
        token: acme.token,
      })
    ).json;

    const tab = await openTab(env.browser, env.pageErrors, { width: 1280, height: 900 });
    try {
      const savings = tab.page;
      await env.signIn(savings, acme.token);
      await env.go('Savings', '/savings', savings);
      const totals = savings.getByTestId('savings-totals');
      await savings.getByTestId('savings-chart').locator('canvas').waitFor();
      const text = await totals.innerText();
      assert.ok(
        text.includes(usd(expected.totals.cost_micro_usd)),
        `${text} shows ${usd(expected.totals.cost_micro_usd)}`,
      );
      assert.ok(text.includes(`≈ ${usd(expected.totals.savings_micro_usd)}`), text);
      assert.ok(text.includes(usd(expected.totals.caching_savings_micro_usd)), text);
      const table = savings.getByTestId('savings-groups');
      assert.equal(await table.getByTestId('savings-row').count(), 4);
      const claude = table.locator('[data-testid=savings-row]', { hasText: 'claude-code-platform' });
      assert.match(await claude.getByTestId('compression-saved').innerText(), /^≈ \$/);
      assert.equal(
        (
          await table
            .locator('[data-testid=savings-row]', { hasText: 'backend-prod' })
            .getByTestId('compression-saved')
            .innerText()
        ).trim(),
        '$0.00',
        'no compression on the backend key',
      );
      await savings.getByTestId('estimate-note').waitFor();
      for (const chart of ['savings-chart', 'savings-tokens-chart', 'savings-groups-chart']) {
        const box = await savings.getByTestId(chart).locator('canvas').boundingBox();
        assert.ok(box && box.width > 200 && box.height > 150, `${chart} is drawn (${JSON.stringify(box)})`);
      }
      const image = join(ARTIFACTS, '12-savings.png');
      await savings.screenshot({ path: image, fullPage: true });
      if (process.env.UPDATE_SCREENSHOTS === '1') copyFileSync(image, join('docs', 'images', 'savings.png'));

      await savings.selectOption('select[name=group_by]', 'model');
      await savings.getByTestId('savings-row').filter({ hasText: 'anthropic/claude-sonnet-4-5' }).waitFor();
      await savings.selectOption('select[name=group_by]', 'day');
      await waitFor(async () => (await savings.getByTestId('savings-row').count()) === 30, { what: '30 days' });
      assert.equal(await savings.getByTestId('savings-groups-chart').count(), 0, 'days are the time axis already');
    } finally {
      await tab.context.close();
    }
  });

  it('a deleted project takes its page with it', async () => {
    await env.go('Projects', '/projects');
    await env.page.getByTestId('delete-project').click();
    await env.page.getByTestId('confirm').click();
    await env.page.waitForURL('**/projects');
    await env.page.getByText('No projects yet').waitFor();
  });

  it('no script error or blocked resource in any page', () => {
    assert.deepEqual(env.pageErrors, []);
  });
});
