import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { waitFor } from '../support/chat-kit.js';
import { skipWithoutChromium } from './browser.js';
import { startConsoleSession } from './web-console-session.js';
import { suiteFixture } from '../support/suite-fixture.js';

/** The Limits page (docs/limits.md) in a real browser: set a limit, see a refusal explained, remove it. */
describe('web console in headless Chromium: limits', { skip: skipWithoutChromium }, () => {
  const env = suiteFixture(startConsoleSession);

  it('sets a daily spend limit on a key, lists it with its window, explains a bad amount, and removes it', async () => {
    const created = await env.api('POST', `/v1/organizations/${env.org.id}/api_keys`, { name: 'limited key' });
    assert.equal(created.status, 201);
    const keyId = created.json.id as string;
    await env.signIn(env.page, env.org.token);
    await env.go('Limits', '/limits');
    await env.page.getByTestId('empty').waitFor();

    await env.page.fill('input[name=subject_id]', keyId);
    await env.page.fill('input[name=amount]', '5');
    await env.page.getByTestId('set-limit').click();
    const row = env.page.locator('[data-testid=limit-row]');
    await row.waitFor();
    assert.match(await row.innerText(), /\$5 a day/);
    assert.match(await row.innerText(), /\$0\.00 spent/);
    await env.shot('limits-01-set');

    await env.page.selectOption('select[name=metric]', 'requests');
    await env.page.fill('input[name=amount]', '1.5');
    await env.page.getByTestId('set-limit').click();
    await env.page.getByText('A requests limit is a whole number, at least 1.').first().waitFor();
    await env.page.fill('input[name=amount]', '60');
    await env.page.getByTestId('set-limit').click();
    await env.page.locator('[data-testid=limit-row]').nth(1).waitFor();
    assert.match(await env.page.getByTestId('limits-table').innerText(), /60 requests a minute/);

    const listed = await env.api('GET', `/v1/organizations/${env.org.id}/limits`);
    assert.deepEqual(
      listed.json.data.map((l: { metric: string; window: string; amount: number }) => [l.metric, l.window, l.amount]),
      [
        ['spend', 'daily', 5],
        ['requests', 'minute', 60],
      ],
    );
    await env.page.locator('[data-testid=limit-row]').first().getByRole('button', { name: 'Remove' }).click();
    await env.page.getByRole('button', { name: 'Remove limit' }).click();
    await waitFor(async () => (await env.page.locator('[data-testid=limit-row]').count()) === 1, {
      what: 'one row left',
    });
    assert.equal((await env.api('GET', `/v1/organizations/${env.org.id}/limits`)).json.data.length, 1);
    assert.deepEqual(env.pageErrors, []);
  });
});
