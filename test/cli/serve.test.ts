import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes, X509Certificate } from 'node:crypto';
import { connect } from 'node:tls';
import { generate } from 'selfsigned';
import { dropSchema, storeKinds } from '../support/gateway-harness.js';
import { buildDist, httpsClient, runCli, startServe, type ServeProcess } from './cli-process.js';

/**
 * The operator's path through the real executable: `bin/gateway serve` (built dist/), the
 * listening line, `bin/gateway admin bootstrap`, then the console and gateway over HTTPS with
 * the generated certificate, SIGTERM, and a restart on the same data dir.
 */
const LISTENING =
  /^\{"event":"listening","gateway":"https:\/\/127\.0\.0\.1:\d+","console":"https:\/\/127\.0\.0\.1:\d+","collector":"https:\/\/127\.0\.0\.1:\d+"\}$/;

function fingerprintOf(url: string, ca: string): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port), ca, servername: 'localhost' }, () => {
      const fingerprint = socket.getPeerCertificate().fingerprint256;
      socket.end();
      resolve(fingerprint);
    });
    socket.once('error', reject);
  });
}

before(() => buildDist(), { timeout: 120_000 });

for (const store of storeKinds()) {
  describe(`bin/gateway serve and admin bootstrap (${store})`, () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'gateway-cli-'));
    const schema = `t_cli_${randomBytes(5).toString('hex')}`;
    const env: Record<string, string> = {
      GATEWAY_DATA_DIR: dataDir,
      GATEWAY_PORT: '0',
      CONSOLE_PORT: '0',
      COLLECTOR_PORT: '0',
      LOG_LEVEL: 'warn',
      ...(store === 'postgres'
        ? { DATABASE_URL: process.env.GATEWAY_TEST_DATABASE_URL!, DATABASE_SCHEMA: schema }
        : {}),
    };
    let serve: ServeProcess | undefined;
    let client: ReturnType<typeof httpsClient>;
    let ca = '';
    let org: { organization_id: string; organization_slug: string; console_token: string };
    let keptKey: { id: string; key: string };

    before(async () => {
      serve = await startServe('bin', env);
      ca = readFileSync(join(dataDir, 'tls', 'cert.pem'), 'utf8');
      client = httpsClient(ca);
    });
    after(async () => {
      await serve?.stop();
      await client?.close();
      rmSync(dataDir, { recursive: true, force: true });
      if (store === 'postgres') await dropSchema(schema);
    });

    it('prints exactly the listening JSON line with three https URLs as the first stdout line', () => {
      assert.match(serve!.listeningLine, LISTENING);
      const urls = JSON.parse(serve!.listeningLine);
      assert.deepEqual(Object.keys(urls), ['event', 'gateway', 'console', 'collector']);
      assert.equal(new Set([urls.gateway, urls.console, urls.collector]).size, 3);
    });

    it('admin bootstrap prints one JSON line with organization_id, organization_slug and console_token', async () => {
      const result = await runCli('bin', ['admin', 'bootstrap', '--org', 'acme', '--name', 'Acme Inc'], env);
      assert.equal(result.status, 0, result.stderr);
      const lines = result.stdout.split('\n').filter(Boolean);
      assert.equal(lines.length, 1, result.stdout);
      org = JSON.parse(lines[0]!);
      assert.deepEqual(Object.keys(org).sort(), ['console_token', 'organization_id', 'organization_slug']);
      assert.equal(org.organization_slug, 'acme');
      assert.match(org.organization_id, /^[0-9a-f-]{36}$/);
      assert.match(org.console_token, /^gwc_[A-Za-z0-9_-]{43}$/);
    });

    it('create, list, reveal, update and delete a key, and list models with Bearer and with Basic, over HTTPS with the generated certificate', async () => {
      const base = `${serve!.urls.console}/v1/organizations/${org.organization_id}/api_keys`;
      const token = org.console_token;
      const created = await client.call(base, 'POST', { token, body: { name: 'cli key', expires_in_days: 30 } });
      assert.equal(created.status, 201, created.text);
      assert.match(created.json.key, /^gw-/);
      const id = created.json.id as string;
      const secret = created.json.key as string;

      const list = await client.call(base, 'GET', { token });
      assert.equal(list.status, 200);
      assert.equal(list.json.object, 'list');
      assert.deepEqual(
        list.json.data.map((k: { id: string }) => k.id),
        [id],
      );
      assert.equal(list.json.data[0].key, undefined);

      const revealed = await client.call(`${base}/${id}/reveal`, 'GET', { token });
      assert.equal(revealed.status, 200);
      assert.equal(revealed.json.key, secret);

      const bearer = await client.call(`${serve!.urls.gateway}/v1/models`, 'GET', { token: secret });
      assert.equal(bearer.status, 200, bearer.text);
      assert.equal(bearer.json.object, 'list');
      assert.ok(bearer.json.data.some((m: { id: string }) => m.id === 'local/echo'));
      const basic = await client.call(`${serve!.urls.gateway}/v1/models`, 'GET', {
        headers: { authorization: `Basic ${Buffer.from(`${secret}:`).toString('base64')}` },
      });
      assert.equal(basic.status, 200, basic.text);
      assert.deepEqual(basic.json, bearer.json);

      const updated = await client.call(`${base}/${id}`, 'POST', { token, body: { name: 'renamed', active: false } });
      assert.equal(updated.status, 200, updated.text);
      assert.equal(updated.json.name, 'renamed');
      assert.equal(updated.json.active, false);
      assert.equal(updated.json.key, undefined);
      const refused = await client.call(`${serve!.urls.gateway}/v1/models`, 'GET', { token: secret });
      assert.equal(refused.status, 403);
      assert.equal(refused.json.error.code, 'forbidden');

      const deleted = await client.call(`${base}/${id}`, 'DELETE', { token });
      assert.deepEqual(deleted.json, { object: 'ai_gateway_api_key', id, deleted: true });
      const gone = await client.call(`${serve!.urls.gateway}/v1/models`, 'GET', { token: secret });
      assert.equal(gone.status, 401);
      const after = await client.call(base, 'GET', { token });
      assert.deepEqual(after.json.data, []);

      const kept = await client.call(base, 'POST', { token, body: { name: 'kept across restart' } });
      assert.equal(kept.status, 201);
      keptKey = { id: kept.json.id, key: kept.json.key };
    });

    it('a second bootstrap for the same slug reuses the organization and issues a different token', async () => {
      const result = await runCli('bin', ['admin', 'bootstrap', '--org', 'acme'], env);
      assert.equal(result.status, 0, result.stderr);
      const second = JSON.parse(result.stdout.trim());
      assert.equal(second.organization_id, org.organization_id);
      assert.notEqual(second.console_token, org.console_token);
      const list = await client.call(`${serve!.urls.console}/v1/organizations/${org.organization_id}/api_keys`, 'GET', {
        token: second.console_token,
      });
      assert.equal(list.status, 200);
      assert.deepEqual(
        list.json.data.map((k: { id: string }) => k.id),
        [keptKey.id],
      );
    });

    it('bootstrap refuses a slug that is not lowercase letters, digits and dashes', async () => {
      const result = await runCli('bin', ['admin', 'bootstrap', '--org', 'Not A Slug'], env);
      assert.equal(result.status, 1);
      assert.equal(result.stdout, '');
      assert.match(result.stderr, /--org must be a slug/);
    });

    it('writes the TLS private key and the master key with mode 0600', () => {
      assert.equal(statSync(join(dataDir, 'tls', 'key.pem')).mode & 0o777, 0o600);
      assert.equal(statSync(join(dataDir, 'secret.key')).mode & 0o777, 0o600);
      assert.ok(new X509Certificate(ca).checkHost('localhost'));
      assert.ok(new X509Certificate(ca).checkIP('127.0.0.1'));
    });

    it('exits 0 within 5 s of SIGTERM, then a restart reuses the certificate, its key and the master key', async () => {
      const certBefore = readFileSync(join(dataDir, 'tls', 'cert.pem'), 'utf8');
      const keyBefore = readFileSync(join(dataDir, 'tls', 'key.pem'), 'utf8');
      const masterBefore = readFileSync(join(dataDir, 'secret.key'), 'utf8');
      const stopped = await serve!.stop();
      assert.equal(stopped.code, 0, `exit code ${stopped.code} signal ${stopped.signal}; stderr: ${serve!.stderr()}`);
      assert.ok(stopped.elapsedMs < 5000, `took ${stopped.elapsedMs} ms`);

      serve = await startServe('bin', env);
      assert.equal(readFileSync(join(dataDir, 'tls', 'cert.pem'), 'utf8'), certBefore);
      assert.equal(readFileSync(join(dataDir, 'tls', 'key.pem'), 'utf8'), keyBefore);
      assert.equal(readFileSync(join(dataDir, 'secret.key'), 'utf8'), masterBefore);
      await client.close();
      client = httpsClient(certBefore); // the old certificate still verifies the new process
      const models = await client.call(`${serve.urls.gateway}/v1/models`, 'GET', { token: keptKey.key });
      assert.equal(models.status, 200);
      const revealed = await client.call(
        `${serve.urls.console}/v1/organizations/${org.organization_id}/api_keys/${keptKey.id}/reveal`,
        'GET',
        {
          token: org.console_token,
        },
      );
      assert.equal(revealed.json.key, keptKey.key);
    });
  });
}

describe('bin/gateway serve with TLS_CERT_FILE and TLS_KEY_FILE', () => {
  it('serves the given certificate and generates none in the data dir', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'gateway-cli-tls-'));
    try {
      const pems = await generate([{ name: 'commonName', value: 'operator-supplied.test' }], {
        keyType: 'ec',
        curve: 'P-256',
        algorithm: 'sha256',
        extensions: [
          {
            name: 'subjectAltName',
            altNames: [
              { type: 2, value: 'localhost' },
              { type: 7, ip: '127.0.0.1' },
            ],
          },
        ],
      });
      const certFile = join(dataDir, 'operator-cert.pem');
      const keyFile = join(dataDir, 'operator-key.pem');
      writeFileSync(certFile, pems.cert);
      writeFileSync(keyFile, pems.private, { mode: 0o600 });
      const serve = await startServe('bin', {
        GATEWAY_DATA_DIR: dataDir,
        GATEWAY_PORT: '0',
        CONSOLE_PORT: '0',
        COLLECTOR_PORT: '0',
        LOG_LEVEL: 'warn',
        TLS_CERT_FILE: certFile,
        TLS_KEY_FILE: keyFile,
      });
      try {
        const expected = new X509Certificate(pems.cert).fingerprint256;
        for (const url of Object.values(serve.urls)) assert.equal(await fingerprintOf(url, pems.cert), expected, url);
        assert.throws(() => statSync(join(dataDir, 'tls', 'cert.pem')), /ENOENT/);
      } finally {
        const stopped = await serve.stop();
        assert.equal(stopped.code, 0);
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('refuses to start when only one of TLS_CERT_FILE and TLS_KEY_FILE is set', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'gateway-cli-tls-'));
    try {
      const result = await runCli('bin', ['serve'], {
        GATEWAY_DATA_DIR: dataDir,
        GATEWAY_PORT: '0',
        CONSOLE_PORT: '0',
        COLLECTOR_PORT: '0',
        TLS_CERT_FILE: '/nonexistent.pem',
      });
      assert.equal(result.status, 1);
      assert.equal(result.stdout, '');
      assert.match(result.stderr, /TLS_CERT_FILE and TLS_KEY_FILE must be given together/);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
