import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { waitFor } from '../support/chat-kit.js';
import { trajectoryMessages } from '../support/trajectory-messages.js';
import { suiteFixture } from '../support/suite-fixture.js';
import { skipWithoutChromium } from './browser.js';
import { MODEL, startConsoleSession } from './web-console-session.js';

/** The Debug capture page in Chromium: start capture for a key, a compressed request, its diff and bodies. */
describe('web console: debug capture in headless Chromium', { skip: skipWithoutChromium }, () => {
  const env = suiteFixture(startConsoleSession);

  it('starts capture for a key, lists the captured request and shows what compression changed', async () => {
    const created = await env.api('POST', `/v1/organizations/${env.org.id}/api_keys`, {
      name: 'captured key',
      compression: true,
    });
    assert.equal(created.status, 201, created.text);
    const { id: keyId, key: secret } = created.json as { id: string; key: string };
    await env.signIn(env.page, env.org.token);
    await env.go('Debug capture', '/debug');
    await env.page.selectOption('select[name=api_key_id]', keyId);
    await env.page.getByTestId('capture-start').click();
    await env.page.getByTestId('capture-state').getByText('capturing').waitFor();
    assert.match(await env.page.getByTestId('capture-state').innerText(), /until/);

    const answer = await env.h.gateway('POST', '/v1/chat/completions', {
      token: secret,
      body: { model: MODEL, messages: trajectoryMessages() },
    });
    assert.equal(answer.status, 200, answer.text);
    await waitFor(async () => {
      const page = await env.api('GET', `/v1/organizations/${env.org.id}/debug_captures`);
      return page.json.data.length === 1;
    });
    await env.page.getByRole('button', { name: 'Refresh' }).click();
    await env.page.getByTestId('captures-table').waitFor();
    await env.page.getByTestId('capture-open').click();
    const diff = env.page.getByTestId('capture-diff');
    await diff.waitFor();
    assert.match(await diff.innerText(), /changed/);
    assert.ok((await env.page.getByTestId('diff-lines').count()) > 0, 'a changed item shows its lines');
    await env.shot('debug-capture-diff');
    await env.page.getByRole('button', { name: 'Sent upstream' }).click();
    assert.match(await env.page.getByTestId('capture-view').innerText(), /mock-openai/);
    await env.page.getByRole('button', { name: 'Answer' }).click();
    assert.match(await env.page.getByTestId('capture-view').innerText(), /JSON body/);

    await env.page.getByTestId('capture-stop').click();
    await env.page.getByTestId('capture-state').getByText('not capturing').waitFor();
    assert.deepEqual(env.pageErrors, []);
  });
});
