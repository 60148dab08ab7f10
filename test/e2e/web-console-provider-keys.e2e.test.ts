import { describe, it, before } from 'node:test';
import assert from 'node:assert/strict';
import { skipWithoutChromium } from './browser.js';
import { MODEL, startConsoleSession } from './web-console-session.js';
import { suiteFixture } from '../support/suite-fixture.js';
import { waitFor } from '../support/chat-kit.js';

/**
 * The Provider keys page in a real browser (docs/byok.md): a key typed once, shown only by its
 * hint, used at the gateway at once, replaced and removed; the allow-lists refuse a model. No
 * request the page makes fails.
 */
describe('web console in headless Chromium: provider keys', { skip: skipWithoutChromium }, () => {
  const env = suiteFixture(startConsoleSession);
  const failed: string[] = [];
  let gatewayKey = '';
  const ownKey = 'sk-org-own-key-from-the-browser-4321';

  const chat = () =>
    env.h.gateway('POST', '/v1/chat/completions', {
      token: gatewayKey,
      body: { model: MODEL, messages: [{ role: 'user', content: 'Hello' }] },
    });
  const keySeen = () => env.mock.lastRequest()!.headers.authorization;

  before(async () => {
    gatewayKey = (await env.h.createKey(env.org, { name: 'byok e2e' })).key;
    env.page.on('response', (response) => {
      if (response.status() >= 400) failed.push(`${response.status()} ${response.url()}`);
    });
    await env.signIn(env.page, env.org.token);
  });

  it('adds a key shown only by its hint, and the gateway uses it at once', async () => {
    await env.go('Provider keys', '/provider-keys');
    await env.page.getByTestId('empty').waitFor();
    await env.page.selectOption('select[name=provider]', 'mock-openai');
    await env.page.fill('input[name=key]', ownKey);
    await env.page.getByTestId('add-provider-key').click();
    const row = env.page.locator('[data-testid=provider-key-row][data-provider=mock-openai]');
    await row.waitFor();
    assert.match(await row.innerText(), /…4321/);
    assert.ok(!(await env.page.content()).includes(ownKey), 'the key is not on the page after it was added');
    const next = await env.page.inputValue('select[name=provider]');
    assert.ok(next !== '' && next !== 'mock-openai', 'the form offers a provider without a key next');
    await env.shot('provider-keys');
    assert.equal((await chat()).status, 200);
    assert.equal(keySeen(), `Bearer ${ownKey}`);
  });

  it('replaces and removes the key; the gateway follows each change', async () => {
    const row = env.page.locator('[data-testid=provider-key-row][data-provider=mock-openai]');
    await row.getByRole('button', { name: 'Replace' }).click();
    await env.page.locator('[role=dialog] input[name=key]').fill('sk-org-replaced-key-0000-8765');
    await env.page.getByRole('button', { name: 'Replace key' }).click();
    await row.getByText('…8765').waitFor();
    assert.equal((await chat()).status, 200);
    assert.equal(keySeen(), 'Bearer sk-org-replaced-key-0000-8765');

    await row.getByRole('button', { name: 'Remove' }).click();
    await env.page.getByRole('button', { name: 'Remove key' }).click();
    await env.page.getByTestId('empty').waitFor();
    assert.equal((await chat()).status, 200);
    assert.equal(keySeen(), 'Bearer sk-mock', "the operator's key serves again");
  });

  it('a model allow-list set on the page refuses other models at the gateway', async () => {
    await env.page.check('input[name=restrict-models]');
    await env.page.fill('textarea[name=models]', 'openai/another-model');
    await env.page.getByTestId('save-allow-lists').click();
    const listsPath = `/v1/organizations/${env.org.id}/allow_lists`;
    await waitFor(async () => (await env.api('GET', listsPath)).json.models !== null, { what: 'the lists saved' });
    const lists = await env.api('GET', listsPath);
    assert.deepEqual(lists.json.models, ['openai/another-model']);
    const refused = await chat();
    assert.equal(refused.status, 403);
    assert.match(refused.json.error.message, /allow-list/);
    await env.shot('provider-keys-allow-lists');
    await env.page.uncheck('input[name=restrict-models]');
    await env.page.getByTestId('save-allow-lists').click();
    await env.page.locator('textarea[name=models]:disabled').waitFor();
    await waitFor(async () => (await env.api('GET', listsPath)).json.models === null, { what: 'the list lifted' });
    assert.deepEqual(failed, [], 'no request of the page failed');
    assert.deepEqual(env.pageErrors, []);
  });
});
