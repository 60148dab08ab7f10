import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { Page } from 'playwright-core';
import type { Harness } from '../support/gateway-harness.js';
import type { MockUpstream } from '../support/mock-upstreams/index.js';
import { waitFor } from '../support/chat-kit.js';
import { skipWithoutChromium } from './browser.js';
import { MODEL, startConsoleSession, type ConsoleSession } from './web-console-session.js';

/**
 * The web console in a real browser (Debian's Chromium through playwright-core), each page with an
 * error state: sign-in, API keys, usage, logs and gateway tools, one admin tab through them in
 * order (web-console-projects.e2e.test.ts: projects, API tokens and savings).
 */
describe('web console in headless Chromium', { skip: skipWithoutChromium }, () => {
  let session: ConsoleSession | undefined;

  let h: Harness;
  let mock: MockUpstream;
  let org: ConsoleSession['org'];
  let page: Page;
  let pageErrors: string[];
  let shot: ConsoleSession['shot'];
  let api: ConsoleSession['api'];
  let go: ConsoleSession['go'];
  let secret = '';
  let keyId = '';

  before(async () => {
    session = await startConsoleSession();
    ({ h, mock, org, page, pageErrors, shot, api, go } = session);
  });
  after(() => session?.stop());

  it('signs in with a console token, and says why a bad one is refused', async () => {
    await page.goto(`${h.running.urls.console}/`);
    await page.waitForURL('**/sign-in');
    await shot('01-sign-in');
    await page.fill('input[name=token]', 'not-a-token');
    await page.click('button[type=submit]');
    await page.getByTestId('error').waitFor();
    assert.match(await page.getByTestId('error').innerText(), /Invalid console token/);
    await page.fill('input[name=token]', org.token);
    await page.click('button[type=submit]');
    await page.waitForURL('**/keys');
    assert.equal(await page.getByTestId('org-name').innerText(), 'acme-e2e');
    await page.getByTestId('empty').waitFor();
    assert.match(await page.getByTestId('empty').innerText(), /No API keys yet/);
    assert.equal(await page.evaluate('sessionStorage.length'), 1, 'the token is kept in sessionStorage');
  });

  it('API keys: creates a key with limits, shows it once with a working copy button, and lists it', async () => {
    await page.getByTestId('new-key').click();
    await page.fill('input[name=name]', 'e2e key');
    await page.fill('input[name=max_usage]', '5');
    await page.selectOption('select[name=expiry]', 'days');
    await page.fill('input[name=expires_in_days]', '30');
    await page.check('input[name=debug_mode]');
    await page.getByTestId('create-key').click();
    await page.getByTestId('secret').waitFor();
    secret = (await page.getByTestId('secret').innerText()).trim();
    assert.match(secret, /^gw-/);
    await page.getByTestId('copy').click();
    await page.getByTestId('copy').getByText('Copied').waitFor();
    assert.equal(await page.evaluate('navigator.clipboard.readText()'), secret);
    await shot('02-key-created');
    await page.keyboard.press('Escape');
    const row = page.locator('[data-testid=key-row][data-key-name="e2e key"]');
    await row.waitFor();
    assert.match(await row.innerText(), /Active/);
    assert.match(await row.innerText(), /of \$5/);
    assert.match(await row.getByTestId('key-options').innerText(), /debug/);
    const keys = await api('GET', `/v1/organizations/${org.id}/api_keys`);
    keyId = keys.json.data[0].id;
    assert.equal(keys.json.data[0].debug_mode, true);
    assert.ok(Date.parse(keys.json.data[0].expires_at) > Date.now() + 29 * 86_400_000);
    await shot('03-keys');
  });

  it('the key works at the gateway, and its spend appears on the usage page', async () => {
    mock.setScenario({ usage: { inputTokens: 1200, outputTokens: 800 } });
    for (const tags of [['checkout'], ['checkout', 'batch'], []]) {
      const result = await h.gateway('POST', '/v1/chat/completions', {
        token: secret,
        body: { model: MODEL, messages: [{ role: 'user', content: 'Hello' }], tags },
      });
      assert.equal(result.status, 200, result.text);
    }
    const echo = await h.gateway('POST', '/v1/chat/completions', {
      token: secret,
      body: { model: 'local/echo', messages: [{ role: 'user', content: 'Hi' }] },
    });
    assert.equal(echo.status, 200, echo.text);
    // Rows and the key's ledger are written just after the answers: wait for them through the API.
    await waitFor(
      async () => (await api('GET', `/v1/organizations/${org.id}/usage/keys`)).json.data[0]?.spent_micro_usd === 33_000,
      { what: 'the key spend', timeoutMs: 10_000 },
    );

    await go('Usage and cost', '/usage');
    await page.getByTestId('spend-chart').locator('canvas').waitFor();
    const totals = await page.getByTestId('usage-totals').innerText();
    assert.match(totals, /\$0\.033/, totals);
    assert.match(totals, /REQUESTS\s*4/i, totals);
    const spend = page.locator('[data-testid=key-spend-row][data-key-name="e2e key"] [data-testid=key-spend]');
    assert.equal((await spend.innerText()).trim(), '$0.033');
    const groups = await page.getByTestId('usage-groups').innerText();
    assert.match(groups, new RegExp(MODEL.replace('/', '\\/')));
    assert.match(groups, /local\/echo/);
    for (const chart of ['spend-chart', 'tokens-chart', 'share-chart']) {
      const box = await page.getByTestId(chart).locator('canvas').boundingBox();
      assert.ok(box && box.width > 200 && box.height > 150, `${chart} is drawn (${JSON.stringify(box)})`);
    }
    await shot('04-usage-by-model');
    await page.selectOption('select[name=group_by]', 'tag');
    await page.getByTestId('usage-groups').getByText('batch').waitFor();
    await page.selectOption('select[name=period]', '24h');
    await page.getByTestId('usage-groups').getByText('checkout').waitFor();
  });

  it('the logs page shows the metered requests and downloads CSV and JSON', async () => {
    await go('Logs', '/logs');
    const table = page.getByTestId('logs-table');
    await table.waitFor();
    assert.equal(await table.locator('tbody tr').count(), 4);
    assert.match(await table.innerText(), /0\.011000/);
    await shot('05-logs');
    for (const format of ['csv', 'json'] as const) {
      const [download] = await Promise.all([
        page.waitForEvent('download'),
        page.getByTestId(`download-${format}`).click(),
      ]);
      const text = readFileSync(await download.path(), 'utf8');
      if (format === 'csv') assert.match(text.split('\n')[0]!, /^Timestamp,API Key,Model/);
      else assert.equal(JSON.parse(text).length, 4);
    }
    await page.fill('input[name=tags]', 'batch');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await waitFor(async () => (await table.locator('tbody tr').count()) === 1, { what: 'one row tagged batch' });
  });

  it('API keys: edits limits, type and gateway tools; a refused model list is shown under its field', async () => {
    await go('API keys', '/keys');
    const row = page.locator('[data-testid=key-row][data-key-name="e2e key"]');
    await row.getByRole('button', { name: 'Edit' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.locator('input[name=models]').fill('not a model');
    await page.getByTestId('save-key').click();
    const fieldError = dialog.locator('[data-testid=field-error][data-param^="models"]');
    await fieldError.waitFor();
    assert.match(await fieldError.innerText(), /models/);
    await dialog.locator('input[name=models]').fill(`${MODEL}, local/echo`);
    await dialog.locator('input[name=max_usage]').fill('7');
    await dialog.locator('select[name=expiry]').selectOption('never');
    await dialog.locator('select[name=type]').selectOption('coding_agent');
    await dialog.locator('select[name=coding_assistant]').selectOption('codex');
    await dialog.locator('input[name=cache_breakpoints]').uncheck();
    await dialog.locator('input[name=output_brevity]').check();
    await dialog.getByLabel('gateway_current_time: this key may use it').check();
    await dialog.getByLabel(/gateway_current_time: injected/).check();
    await shot('06-key-edit');
    await page.getByTestId('save-key').click();
    await dialog.waitFor({ state: 'detached' });
    await waitFor(async () => /of \$7/.test(await row.innerText()), { what: 'the new ceiling in the row' });
    assert.match(await row.innerText(), /Coding agent · codex/);
    assert.match(await row.getByTestId('key-options').innerText(), /1 tool/);
    const key = (await api('GET', `/v1/organizations/${org.id}/api_keys/${keyId}`)).json;
    assert.deepEqual(
      [
        key.models,
        key.max_usage,
        key.expires_at,
        key.type,
        key.coding_assistant,
        key.debug_mode,
        key.cache_breakpoints,
        key.output_brevity,
      ],
      [[MODEL, 'local/echo'], 7, null, 'coding_agent', 'codex', true, false, true],
    );
    const tool = (await api('GET', `/v1/organizations/${org.id}/gateway_tools/gateway_current_time`)).json;
    assert.deepEqual(
      [tool.active, tool.active_key_ids, tool.hydrate, tool.hydrate_key_ids],
      [true, [keyId], false, [keyId]],
    );
  });

  it('Gateway tools: turns a tool on for every key and injects it for chosen keys', async () => {
    await go('Gateway tools', '/tools');
    const current = page.locator('[data-testid=tool-card][data-tool=gateway_current_time]');
    await current.waitFor();
    assert.ok(await current.getByLabel('Only these keys').isChecked(), 'the per-key choice made on the key shows here');
    assert.ok(await current.getByLabel('e2e key: may use').isChecked());
    const calculator = page.locator('[data-testid=tool-card][data-tool=gateway_calculator]');
    await calculator.locator('input[name=active]').check();
    await calculator.getByLabel('For these keys').check();
    await calculator.getByLabel('e2e key: injected').check();
    await calculator.getByTestId('save-tool').click();
    await calculator.locator('.badge.ok', { hasText: 'On' }).waitFor();
    const tool = (await api('GET', `/v1/organizations/${org.id}/gateway_tools/gateway_calculator`)).json;
    assert.deepEqual(
      [tool.active, tool.active_key_ids, tool.hydrate, tool.hydrate_key_ids],
      [true, null, false, [keyId]],
    );
    await shot('07-gateway-tools');
  });

  it('keys can be deactivated, revealed and deleted after a confirmation', async () => {
    await go('API keys', '/keys');
    const row = page.locator('[data-testid=key-row][data-key-name="e2e key"]');
    await row.getByRole('button', { name: 'Deactivate' }).click();
    await row.getByText('Inactive').waitFor();
    const refused = await h.gateway('POST', '/v1/chat/completions', {
      token: secret,
      body: { model: 'local/echo', messages: [{ role: 'user', content: 'Hi' }] },
    });
    assert.equal(refused.status, 403, 'an inactive key is refused');
    await row.getByRole('button', { name: 'Reveal' }).click();
    assert.equal((await page.getByTestId('secret').innerText()).trim(), secret);
    await page.keyboard.press('Escape');
    await row.getByRole('button', { name: 'Delete' }).click();
    await page.getByTestId('confirm').click();
    await page.getByTestId('empty').waitFor();
  });

  it('the API reference renders from the local OpenAPI document', async () => {
    await page.goto(`${h.running.urls.console}/docs`);
    await page.getByText('/v1/organizations/{orgId}/usage/savings').first().waitFor();
  });

  it('no script error or blocked resource in any page', () => {
    assert.deepEqual(pageErrors, []);
  });
});
