import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { rootCertificates } from 'node:tls';
import { httpsClient, runCli, startServe, type ServeProcess } from './cli-process.js';
import { openStore } from '../../src/store/database.js';
import { ApiKeyRepository } from '../../src/store/api-keys.js';
import { loadMasterKey } from '../../src/secrets/master-key.js';
import { Keyring } from '../../src/secrets/keyring.js';
import { main } from '../../src/cli/main.js';

/**
 * `gateway trust` and `gateway connect`, run as an operator runs them (the CLI in its own
 * process, on the data dir `serve` uses): the CA they print is the one the gateway serves, and
 * a key `connect` creates works against the running gateway.
 */
describe('gateway trust and gateway connect', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'gateway-connect-'));
  const env: Record<string, string> = {
    GATEWAY_DATA_DIR: dataDir,
    GATEWAY_PORT: '0',
    CONSOLE_PORT: '0',
    COLLECTOR_PORT: '0',
    LOG_LEVEL: 'warn',
  };
  let serve: ServeProcess;
  let client: ReturnType<typeof httpsClient>;

  before(async () => {
    serve = await startServe('tsx', env);
  });
  after(async () => {
    await serve?.stop();
    await client?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('trust names the CA the running gateway serves and the variable of each kind of client', async () => {
    const result = await runCli('tsx', ['trust', '--json'], env);
    assert.equal(result.status, 0, result.stderr);
    const info = JSON.parse(result.stdout);
    assert.equal(info.caFile, join(dataDir, 'tls', 'ca.pem'));
    assert.deepEqual(
      info.variables.map((v: { name: string }) => v.name),
      ['NODE_EXTRA_CA_CERTS', 'CODEX_CA_CERTIFICATE', 'SSL_CERT_FILE', 'REQUESTS_CA_BUNDLE'],
    );
    // The variables that replace a trust store get system roots + the CA, so other hosts still verify.
    const bundle = readFileSync(info.caBundleFile, 'utf8');
    assert.ok(bundle.includes(readFileSync(info.caFile, 'utf8').trim()));
    assert.ok(bundle.includes(rootCertificates[0]!));
    client = httpsClient(readFileSync(info.caFile, 'utf8'));
    const health = await client.call(`${serve.urls.gateway}/v1/models`, 'GET');
    assert.equal(health.status, 401, 'the handshake with ca.pem alone succeeds (401: no key yet)');

    const text = await runCli('tsx', ['trust'], env);
    assert.match(text.stdout, new RegExp(`^export NODE_EXTRA_CA_CERTS=${info.caFile}$`, 'm'));
    assert.match(text.stdout, new RegExp(`^export CODEX_CA_CERTIFICATE=${info.caFile}$`, 'm'));
  });

  it('connect claude-code creates a coding-agent key with compression that works on the gateway', async () => {
    const result = await runCli('tsx', ['connect', 'claude-code', '--org', 'acme', '--json'], env);
    assert.equal(result.status, 0, result.stderr);
    const profile = JSON.parse(result.stdout);
    assert.deepEqual(Object.keys(profile.env), [
      'ANTHROPIC_BASE_URL',
      'ANTHROPIC_AUTH_TOKEN',
      'NODE_EXTRA_CA_CERTS',
      'ANTHROPIC_CUSTOM_HEADERS',
    ]);
    assert.equal(profile.env.ANTHROPIC_BASE_URL, 'https://localhost:0', 'origin from GATEWAY_PORT');
    assert.equal(profile.env.ANTHROPIC_CUSTOM_HEADERS, 'X-Gateway-Compression-Model: claude');
    assert.equal(profile.env.NODE_EXTRA_CA_CERTS, join(dataDir, 'tls', 'ca.pem'));
    const models = await client.call(`${serve.urls.gateway}/v1/models`, 'GET', {
      token: profile.env.ANTHROPIC_AUTH_TOKEN,
    });
    assert.equal(models.status, 200, models.text);

    const store = await openStore({ dataDir, databaseUrl: undefined, schema: undefined });
    try {
      const keys = await new ApiKeyRepository(store, new Keyring([loadMasterKey(dataDir, undefined)])).list(
        profile.organization_id,
      );
      assert.equal(keys.length, 1);
      assert.equal(keys[0]!.id, profile.key_id);
      assert.equal(keys[0]!.type, 'coding_agent');
      assert.equal(keys[0]!.codingAssistant, 'claude_code');
      assert.equal(keys[0]!.compression, true);
    } finally {
      await store.close();
    }
  });

  it('connect codex --key prints the provider file with the given key and creates nothing', async () => {
    const result = await runCli(
      'tsx',
      ['connect', 'codex', '--key', 'gw-given', '--url', 'https://gw.example.test:9443', '--json'],
      env,
    );
    assert.equal(result.status, 0, result.stderr);
    const profile = JSON.parse(result.stdout);
    assert.equal(profile.key_id, undefined);
    assert.deepEqual(profile.env, {
      GATEWAY_API_KEY: 'gw-given',
      CODEX_CA_CERTIFICATE: join(dataDir, 'tls', 'ca.pem'),
    });
    assert.equal(profile.files[0].path, '~/.codex/config.toml');
    assert.match(profile.files[0].content, /^base_url = "https:\/\/gw\.example\.test:9443\/v1"$/m);
    assert.match(profile.files[0].content, /^wire_api = "responses"$/m);
    assert.match(profile.files[0].content, /^http_headers = \{ "X-Gateway-Compression-Model" = "codex" \}$/m);
  });

  it('connect opencode prints a provider whose models carry the catalogue’s limits and prices', async () => {
    const result = await runCli('tsx', ['connect', 'opencode', '--key', 'gw-given', '--json'], env);
    assert.equal(result.status, 0, result.stderr);
    const profile = JSON.parse(result.stdout);
    const config = JSON.parse(profile.files[0].content);
    assert.deepEqual(config.provider.anthropic.models['claude-haiku-5-5'], {
      name: 'claude-haiku-5-5',
      limit: { context: 200_000, output: 128_000 },
      cost: { input: 0.5, output: 2.5, cache_read: 0.05, cache_write: 0.625 },
    });
  });

  it('connect refuses an unknown client, an unknown bundle and a plain-HTTP URL before touching anything', async () => {
    const result = await runCli('tsx', ['connect', 'emacs'], env);
    assert.equal(result.status, 1);
    assert.match(result.stderr, /^gateway: unknown client "emacs"; one of: claude-code, codex, opencode/);
    // The rest in-process: each is refused before settings, files or the store are read.
    await assert.rejects(
      main(['connect', 'opencode', '--key', 'k', '--compression', 'vim']),
      /--compression must be one of/,
    );
    await assert.rejects(
      main(['connect', 'openai-sdk', '--key', 'k', '--url', 'http://localhost:8443']),
      /https:\/\/ URL/,
    );
    await assert.rejects(main(['connect', 'codex', 'opencode']), /connect takes one client/);
  });
});
