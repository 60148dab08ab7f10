import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { waitFor } from '../support/chat-kit.js';
import { skipWithoutChromium } from './browser.js';
import { MODEL, startConsoleSession } from './web-console-session.js';
import { suiteFixture } from '../support/suite-fixture.js';

/**
 * The web console in a real browser (Debian's Chromium through playwright-core), each page with an
 * error state: sign-in, API keys, usage, logs and gateway tools, one admin tab through them in
 * order (web-console-projects.e2e.test.ts: projects, API tokens and savings).
 */
describe('web console in headless Chromium', { skip: skipWithoutChromium }, () => {
  const env = suiteFixture(startConsoleSession);
  let secret = '';
  let keyId = '';

  it('signs in with a console token, and says why a bad one is refused', async () => {
    await env.page.goto(`${env.h.running.urls.console}/`);
    await env.page.waitForURL('**/sign-in');
    await env.shot('01-sign-in');
    await env.page.fill('input[name=token]', 'not-a-token');
    await env.page.click('button[type=submit]');
    await env.page.getByTestId('error').waitFor();
    assert.match(await env.page.getByTestId('error').innerText(), /Invalid console token/);
    await env.page.fill('input[name=token]', env.org.token);
    await env.page.click('button[type=submit]');
    await env.page.waitForURL('**/keys');
    assert.equal(await env.page.getByTestId('org-name').innerText(), 'acme-e2e');
    await env.page.getByTestId('empty').waitFor();
    assert.match(await env.page.getByTestId('empty').innerText(), /No API keys yet/);
    assert.equal(await env.page.evaluate('sessionStorage.length'), 1, 'the token is kept in sessionStorage');
  });

  it('API keys: creates a key with limits, shows it once with a working copy button, and lists it', async () => {
    await env.page.getByTestId('new-key').click();
    await env.page.fill('input[name=name]', 'e2e key');
    await env.page.fill('input[name=max_usage]', '5');
    await env.page.selectOption('select[name=expiry]', 'days');
    await env.page.fill('input[name=expires_in_days]', '30');
    await env.page.check('input[name=debug_mode]');
    await env.page.getByTestId('create-key').click();
    await env.page.getByTestId('secret').waitFor();
    secret = (await env.page.getByTestId('secret').innerText()).trim();
    assert.match(secret, /^gw-/);
    await env.page.getByTestId('copy').click();
    await env.page.getByTestId('copy').getByText('Copied').waitFor();
    assert.equal(await env.page.evaluate('navigator.clipboard.readText()'), secret);
    await env.shot('02-key-created');
    await env.page.keyboard.press('Escape');
    const row = env.page.locator('[data-testid=key-row][data-key-name="e2e key"]');
    await row.waitFor();
    assert.match(await row.innerText(), /Active/);
    assert.match(await row.innerText(), /of \$5/);
    assert.match(await row.getByTestId('key-options').innerText(), /debug/);
    const keys = await env.api('GET', `/v1/organizations/${env.org.id}/api_keys`);
    keyId = keys.json.data[0].id;
    assert.equal(keys.json.data[0].debug_mode, true);
    assert.ok(Date.parse(keys.json.data[0].expires_at) > Date.now() + 29 * 86_400_000);
    await env.shot('03-keys');
  });

  it('the key works at the gateway, and its spend appears on the usage page', async () => {
    env.mock.setScenario({ usage: { inputTokens: 1200, outputTokens: 800 } });
    for (const tags of [['checkout'], ['checkout', 'batch'], []]) {
      const result = await env.h.gateway('POST', '/v1/chat/completions', {
        token: secret,
        body: { model: MODEL, messages: [{ role: 'user', content: 'Hello' }], tags },
      });
      assert.equal(result.status, 200, result.text);
    }
    const echo = await env.h.gateway('POST', '/v1/chat/completions', {
      token: secret,
      body: { model: 'local/echo', messages: [{ role: 'user', content: 'Hi' }] },
    });
    assert.equal(echo.status, 200, echo.text);
    // Rows and the key's ledger are written just after the answers: wait for them through the API.
    await waitFor(
      async () =>
        (await env.api('GET', `/v1/organizations/${env.org.id}/usage/keys`)).json.data[0]?.spent_micro_usd === 33_000,
      { what: 'the key spend', timeoutMs: 10_000 },
    );

    await env.go('Usage and cost', '/usage');
    await env.page.getByTestId('spend-chart').locator('canvas').waitFor();
    const totals = await env.page.getByTestId('usage-totals').innerText();
    assert.match(totals, /\$0\.033/, totals);
    assert.match(totals, /REQUESTS\s*4/i, totals);
    const spend = env.page.locator('[data-testid=key-spend-row][data-key-name="e2e key"] [data-testid=key-spend]');
    assert.equal((await spend.innerText()).trim(), '$0.033');
    const groups = await env.page.getByTestId('usage-groups').innerText();
    assert.match(groups, new RegExp(MODEL.replace('/', '\\/')));
    assert.match(groups, /local\/echo/);
    for (const chart of ['spend-chart', 'tokens-chart', 'share-chart']) {
      const box = await env.page.getByTestId(chart).locator('canvas').boundingBox();
      assert.ok(box && box.width > 200 && box.height > 150, `${chart} is drawn (${JSON.stringify(box)})`);
    }
    await env.shot('04-usage-by-model');
    await env.page.selectOption('select[name=group_by]', 'tag');
    await env.page.getByTestId('usage-groups').getByText('batch').waitFor();
    await env.page.selectOption('select[name=period]', '24h');
    await env.page.getByTestId('usage-groups').getByText('checkout').waitFor();
  });

  it('the logs page shows the metered requests and the refused one with its code, and downloads CSV and JSON', async () => {
    const refused = await env.h.gateway('POST', '/v1/chat/completions', {
      token: secret,
      body: { model: MODEL, messages: 'not a list' },
    });
    assert.equal(refused.status, 400);
    const logsExport = `/v1/organizations/${env.org.id}/logs/export?format=json`;
    await waitFor(async () => (await env.api('GET', logsExport)).json.length === 5, {
      what: 'the refused request stored',
      timeoutMs: 10_000,
    });
    await env.go('Logs', '/logs');
    const table = env.page.getByTestId('logs-table');
    await table.waitFor();
    assert.equal(await table.locator('tbody tr').count(), 5);
    assert.match(await table.innerText(), /0\.011000/);
    const statuses = await table.getByTestId('log-status').allInnerTexts();
    assert.ok(
      statuses.some((status) => /400\s+invalid_request/.test(status)),
      `the refusal's status and code: ${statuses.join(' | ')}`,
    );
    await env.shot('05-logs');
    for (const format of ['csv', 'json'] as const) {
      const [download] = await Promise.all([
        env.page.waitForEvent('download'),
        env.page.getByTestId(`download-${format}`).click(),
      ]);
      const text = readFileSync(await download.path(), 'utf8');
      if (format === 'csv') assert.match(text.split('\n')[0]!, /^Timestamp,API Key,Model/);
      else assert.equal(JSON.parse(text).length, 5);
    }
    await env.page.fill('input[name=tags]', 'batch');
    await env.page.getByRole('button', { name: 'Apply filters' }).click();
    await waitFor(async () => (await table.locator('tbody tr').count()) === 1, { what: 'one row tagged batch' });
  });

  it('API keys: edits limits, type and gateway tools; a refused model list is shown under its field', async () => {
    await env.go('API keys', '/keys');
    const row = env.page.locator('[data-testid=key-row][data-key-name="e2e key"]');
    await row.getByRole('button', { name: 'Edit' }).click();
    const dialog = env.page.getByRole('dialog');
    await dialog.locator('input[name=models]').fill('not a model');
    await env.page.getByTestId('save-key').click();
    const fieldError = dialog.locator('[data-testid=field-error][data-param^="models"]');
    await fieldError.waitFor();
    assert.match(await fieldError.innerText(), /models/);
    await dialog.locator('input[name=models]').fill(`${MODEL}, local/echo`);
    await dialog.locator('input[name=max_usage]').fill('7');
    await dialog.locator('select[name=expiry]').selectOption('never');
    await dialog.locator('select[name=type]').selectOption('coding_agent');
    await dialog.locator('select[name=coding_assistant]').selectOption('codex');
    await dialog.locator('input[name=cache_breakpoints]').uncheck();
    await dialog.locator('input[name=tool_surface]').uncheck();
    await dialog.locator('input[name=output_brevity]').check();
    await dialog.getByLabel('gateway_current_time: this key may use it').check();
    await dialog.getByLabel(/gateway_current_time: injected/).check();
    await env.shot('06-key-edit');
    await env.page.getByTestId('save-key').click();
    await dialog.waitFor({ state: 'detached' });
    await waitFor(async () => /of \$7/.test(await row.innerText()), { what: 'the new ceiling in the row' });
    assert.match(await row.innerText(), /Coding agent · codex/);
    assert.match(await row.getByTestId('key-options').innerText(), /1 tool/);
    const key = (await env.api('GET', `/v1/organizations/${env.org.id}/api_keys/${keyId}`)).json;
    assert.deepEqual(
      [
        key.models,
        key.max_usage,
        key.expires_at,
        key.type,
        key.coding_assistant,
        key.debug_mode,
        key.cache_breakpoints,
        key.tool_surface,
        key.output_brevity,
      ],
      [[MODEL, 'local/echo'], 7, null, 'coding_agent', 'codex', true, false, false, true],
    );
    const tool = (await env.api('GET', `/v1/organizations/${env.org.id}/gateway_tools/gateway_current_time`)).json;
    assert.deepEqual(
      [tool.active, tool.active_key_ids, tool.hydrate, tool.hydrate_key_ids],
      [true, [keyId], false, [keyId]],
    );
  });

  it('Gateway tools: turns a tool on for every key and injects it for chosen keys', async () => {
    await env.go('Gateway tools', '/tools');
    const current = env.page.locator('[data-testid=tool-card][data-tool=gateway_current_time]');
    await current.waitFor();
    assert.ok(await current.getByLabel('Only these keys').isChecked(), 'the per-key choice made on the key shows here');
    assert.ok(await current.getByLabel('e2e key: may use').isChecked());
    const calculator = env.page.locator('[data-testid=tool-card][data-tool=gateway_calculator]');
    await calculator.locator('input[name=active]').check();
    await calculator.getByLabel('For these keys').check();
    await calculator.getByLabel('e2e key: injected').check();
    await calculator.getByTestId('save-tool').click();
    await calculator.locator('.badge.ok', { hasText: 'On' }).waitFor();
    const tool = (await env.api('GET', `/v1/organizations/${env.org.id}/gateway_tools/gateway_calculator`)).json;
    assert.deepEqual(
      [tool.active, tool.active_key_ids, tool.hydrate, tool.hydrate_key_ids],
      [true, null, false, [keyId]],
    );
    await env.shot('07-gateway-tools');
  });

  it('keys can be deactivated, revealed and deleted after a confirmation', async () => {
    await env.go('API keys', '/keys');
    const row = env.page.locator('[data-testid=key-row][data-key-name="e2e key"]');
    await row.getByRole('button', { name: 'Deactivate' }).click();
    await row.getByText('Inactive').waitFor();
    const refused = await env.h.gateway('POST', '/v1/chat/completions', {
      token: secret,
      body: { model: 'local/echo', messages: [{ role: 'user', content: 'Hi' }] },
    });
    assert.equal(refused.status, 403, 'an inactive key is refused');
    await row.getByRole('button', { name: 'Reveal' }).click();
    assert.equal((await env.page.getByTestId('secret').innerText()).trim(), secret);
    await env.page.keyboard.press('Escape');
    await row.getByRole('button', { name: 'Delete' }).click();
    await env.page.getByTestId('confirm').click();
    await env.page.getByTestId('empty').waitFor();
  });

  it('the API reference renders from the local OpenAPI document', async () => {
    await env.page.goto(`${env.h.running.urls.console}/docs`);
    await env.page.getByText('/v1/organizations/{orgId}/usage/savings').first().waitFor();
  });

  it('no script error or blocked resource in any page', () => {
    assert.deepEqual(env.pageErrors, []);
  });
});
