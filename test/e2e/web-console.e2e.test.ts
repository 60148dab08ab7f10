import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { startHarness, type Harness } from '../support/gateway-harness.js';
import { startMockOpenAI, type MockUpstream } from '../support/mock-upstreams/index.js';
import { waitFor } from '../support/chat-kit.js';
import { ensureWebBuilt } from '../support/web-build.js';

/**
 * The acceptance path of the web console in a real browser: Debian's Chromium driven by
 * playwright-core (no browser download). Skipped, with the reason, where Chromium is missing.
 */
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const skip = existsSync(CHROMIUM)
  ? false
  : `Chromium not found at ${CHROMIUM}: install Debian's chromium (apt-get install -y chromium) or set CHROMIUM_PATH to run the browser test`;
const ARTIFACTS = join('test-artifacts', 'web-console');
const MODEL = 'openai/gpt-4o-priced';
// $2.50 / $10 per million tokens: each request below (1,200 in, 800 out) costs $0.011.
const PRICING = { input_per_mtok: 2.5, output_per_mtok: 10 };

describe('web console in headless Chromium', { skip }, () => {
  let h: Harness;
  let mock: MockUpstream;
  let org: { id: string; token: string };
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  const pageErrors: string[] = [];
  let secret = '';

  const shot = (name: string) => page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true });

  before(async () => {
    ensureWebBuilt();
    mkdirSync(ARTIFACTS, { recursive: true });
    mock = await startMockOpenAI();
    h = await startHarness({
      config: {
        providers: [{ id: 'mock-openai', kind: 'openai', base_url: mock.baseUrl, api_key_env: 'MOCK_OPENAI_KEY' }],
        models: [{ id: MODEL, providers: [{ provider: 'mock-openai', model: 'gpt-4o-upstream' }], pricing: PRICING }],
      },
      env: { MOCK_OPENAI_KEY: 'sk-mock' },
    });
    org = await h.organization('acme-e2e');
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
    context = await browser.newContext({
      ignoreHTTPSErrors: true,
      viewport: { width: 1400, height: 900 },
      acceptDownloads: true,
    });
    page = await context.newPage();
    page.on('pageerror', (error) => pageErrors.push(`pageerror: ${error.message}`));
    page.on('console', (message) => {
      if (message.type() === 'error' && !/401 \(Unauthorized\)/.test(message.text()))
        pageErrors.push(`console: ${message.text()}`);
    });
  });

  after(async () => {
    await context?.close();
    await browser?.close();
    await h?.stop();
    await mock?.close();
  });

  it('signs in with a console token', async () => {
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

  it('creates a key, shows it once with a copy button, and lists it', async () => {
    await page.getByTestId('new-key').click();
    await page.fill('input[name=name]', 'e2e key');
    await page.fill('input[name=max_usage]', '5');
    await page.fill('input[name=expires_in_days]', '30');
    await page.getByTestId('create-key').click();
    await page.getByTestId('secret').waitFor();
    secret = (await page.getByTestId('secret').innerText()).trim();
    assert.ok(secret.length > 20, `a key was shown: ${secret}`);
    assert.ok(await page.getByTestId('copy').isVisible());
    await shot('02-key-created');
    await page.keyboard.press('Escape');
    const row = page.locator('[data-testid=key-row][data-key-name="e2e key"]');
    await row.waitFor();
    assert.match(await row.innerText(), /Active/);
    assert.match(await row.innerText(), /of \$5/);
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
      async () => {
        const keys = await h.console('GET', `/v1/organizations/${org.id}/usage/keys`, { token: org.token });
        return keys.json.data[0]?.spent_micro_usd === 33_000;
      },
      { what: 'the key spend', timeoutMs: 10_000 },
    );

    await page.getByRole('link', { name: 'Usage and cost' }).click();
    await page.waitForURL('**/usage');
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
    await shot('05-usage-by-tag-24h');
  });

  it('the logs page shows the metered requests and downloads CSV and JSON', async () => {
    await page.getByRole('link', { name: 'Logs' }).click();
    await page.waitForURL('**/logs');
    const table = page.getByTestId('logs-table');
    await table.waitFor();
    assert.equal(await table.locator('tbody tr').count(), 4);
    assert.match(await table.innerText(), /0\.011000/);
    await shot('06-logs');
    for (const format of ['csv', 'json'] as const) {
      const [download] = await Promise.all([
        page.waitForEvent('download'),
        page.getByTestId(`download-${format}`).click(),
      ]);
      const file = await download.path();
      const text = readFileSync(file, 'utf8');
      if (format === 'csv') assert.match(text.split('\n')[0]!, /^Timestamp,API Key,Model/);
      else assert.equal(JSON.parse(text).length, 4);
    }
    // Filtering by tag narrows the table.
    await page.fill('input[name=tags]', 'batch');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await waitFor(async () => (await table.locator('tbody tr').count()) === 1, { what: 'one row tagged batch' });
  });

  it('the projects page lists projects with their components, proxy settings and events', async () => {
    const created = await h.console('POST', '/v1/projects', {
      token: org.token,
      body: { slug: 'shop', name: 'Shop', domains: ['shop.example.com'] },
    });
    if (created.status === 201) {
      // Best effort, to show a filled page: these routes belong to the projects feature.
      await h.console('POST', `/v1/projects/${created.json.id}/proxy-settings`, {
        token: org.token,
        body: {
          description: 'first revision',
          is_active: true,
          backends: [{ name: 'origin', address: 'origin.example.com', default: true }],
          routes: [{ path: '/', backend_name: 'origin' }],
        },
      });
      const catalogue = await h.console('GET', '/v1/components?limit=1', { token: org.token });
      const component = catalogue.json?.data?.[0];
      if (component)
        await h.console('POST', `/v1/projects/${created.json.id}/components`, {
          token: org.token,
          body: { component_id: component.id },
        });
    }
    await page.getByRole('link', { name: 'Projects' }).click();
    await page.waitForURL('**/projects');
    if (created.status === 201) {
      await page.getByRole('heading', { name: 'Shop' }).waitFor();
      await page.getByText('Latest collected events').waitFor();
    } else {
      await page.getByTestId('empty').waitFor();
    }
    await page.waitForLoadState('networkidle');
    await shot('07-projects');
  });

  it('keys can be deactivated and deleted after a confirmation', async () => {
    await page.getByRole('link', { name: 'API keys' }).click();
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
    await shot('08-delete-confirmation');
    await page.getByTestId('confirm').click();
    await page.getByTestId('empty').waitFor();
  });

  it('the API reference renders from the local OpenAPI document', async () => {
    await page.goto(`${h.running.urls.console}/docs`);
    await page.getByText('/v1/organizations/{orgId}/usage/summary').first().waitFor();
    await shot('09-api-reference');
  });

  it('no script error or blocked resource in any page', () => {
    assert.deepEqual(pageErrors, []);
  });
});
