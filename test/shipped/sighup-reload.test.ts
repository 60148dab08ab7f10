import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startMockOpenAI, type MockUpstream } from '../support/mock-upstreams/index.js';
import { startServedGateway, type ServedGateway } from '../support/served-gateway.js';
import { waitFor } from '../support/chat-kit.js';
import { steadyLoad } from '../support/steady-load.js';

const PRICING = { input_per_mtok: 1, output_per_mtok: 1 };

/**
 * The built bundle (`bin/gateway serve`, as users run it) reloads its config file and a provider's
 * key file on SIGHUP while clients keep calling, and survives a bad file.
 */
describe('SIGHUP reload of the built artifact', () => {
  let dir: string;
  let mock: MockUpstream;
  let served: ServedGateway;
  const keyFile = () => join(dir, 'provider.key');
  const config = (models: string[]) => ({
    providers: [{ id: 'mock', kind: 'openai', base_url: mock.baseUrl, api_key_file: keyFile() }],
    models: models.map((id) => ({ id: `mock/${id}`, providers: [{ provider: 'mock', model: id }], pricing: PRICING })),
  });

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'sighup-'));
    mock = await startMockOpenAI();
    writeFileSync(keyFile(), 'sk-before\n');
    served = await startServedGateway({ config: config(['m1']) });
  });

  after(async () => {
    await served?.stop();
    await mock?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('uses the new provider key and catalogue after SIGHUP; no request fails; a bad file keeps the old ones', async () => {
    const configFile = join(served.dataDir, 'config.json');
    const load = steadyLoad(4, async (worker, call) => {
      const answer = await served.client.call(`${served.serve.urls.gateway}/v1/chat/completions`, 'POST', {
        token: served.key,
        body: { model: 'mock/m1', messages: [{ role: 'user', content: `hi ${worker}` }], stream: call % 2 === 0 },
      });
      if (answer.status !== 200) throw new Error(`status ${answer.status}: ${answer.text.slice(0, 200)}`);
    });
    try {
      await load.more(20);
      assert.ok(mock.requests.every((r) => r.headers.authorization === 'Bearer sk-before'));

      writeFileSync(keyFile(), 'sk-after\n');
      writeFileSync(configFile, JSON.stringify(config(['m1', 'm2'])));
      process.kill(served.pid, 'SIGHUP');
      const since = mock.requests.length;
      await waitFor(() => mock.requests.slice(since).some((r) => r.headers.authorization === 'Bearer sk-after'), {
        timeoutMs: 5_000,
        what: 'a request with the reloaded key',
      });
      await load.more(20);
      const tail = mock.requests.slice(-8).map((r) => r.headers.authorization);
      assert.deepEqual(new Set(tail), new Set(['Bearer sk-after']));
      const models = await served.client.call(`${served.serve.urls.gateway}/v1/models`, 'GET', { token: served.key });
      assert.ok(
        models.json.data.some((m: { id: string }) => m.id === 'mock/m2'),
        models.text,
      );

      writeFileSync(configFile, 'providers: [unclosed');
      writeFileSync(keyFile(), 'sk-never\n');
      process.kill(served.pid, 'SIGHUP');
      await waitFor(() => served.serve.stderr().includes('GATEWAY_CONFIG was not reloaded') || undefined, {
        timeoutMs: 5_000,
        what: 'the refused reload to be logged',
      });
      const sinceBad = mock.requests.length;
      await load.more(20);
      assert.ok(mock.requests.slice(sinceBad).every((r) => r.headers.authorization === 'Bearer sk-after'));
      assert.ok(served.alive(), 'SIGHUP never stops the process');
    } finally {
      await load.stop();
    }
    assert.deepEqual(load.failures, []);
  });
});
