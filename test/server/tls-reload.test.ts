import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { X509Certificate } from 'node:crypto';
import { connect, type Server as TlsServer, type TLSSocket } from 'node:tls';
import { once } from 'node:events';
import { Writable } from 'node:stream';
import pino from 'pino';
import { Agent } from 'undici';
import { readSettings } from '../../src/config/settings.js';
import { startGateway, type RunningGateway } from '../../src/wiring/start.js';
import { createCa, issueServerCertificate, type CaMaterial } from '../../src/server/local-ca.js';
import { loadTls, serverNames } from '../../src/server/tls.js';
import { TlsReloader } from '../../src/server/tls-reloader.js';
import { ensureOrganization } from '../../src/store/organizations.js';
import { createConsoleToken } from '../../src/store/console-tokens.js';
import { startMockOpenAI, type MockUpstream } from '../support/mock-upstreams/index.js';
import { httpCaller } from '../support/gateway-harness.js';
import { waitFor } from '../support/chat-kit.js';
import { steadyLoad } from '../support/steady-load.js';

const NAMES = ['localhost', '127.0.0.1'];

/** The fingerprint of the certificate a new TLS handshake with `url` gets. */
async function handshakeFingerprint(url: string, ca: string): Promise<string> {
  const { hostname, port } = new URL(url);
  const socket = connect({ host: hostname, port: Number(port), ca, servername: 'localhost' });
  await once(socket, 'secureConnect');
  const fingerprint = socket.getPeerX509Certificate()!.fingerprint256;
  socket.destroy();
  return fingerprint;
}

/** One HTTP/1.1 keep-alive request written by hand on an open TLS connection; the status line's code. */
async function statusOn(socket: TLSSocket, path: string): Promise<number> {
  socket.write(`GET ${path} HTTP/1.1\r\nHost: localhost\r\nConnection: keep-alive\r\n\r\n`);
  const [chunk] = (await once(socket, 'data')) as [Buffer];
  return Number(/^HTTP\/1\.1 (\d{3})/.exec(chunk.toString('latin1'))?.[1]);
}

describe('certificate renewal without a restart', () => {
  let dir: string;
  let ca: CaMaterial;
  let running: RunningGateway;
  let mock: MockUpstream;
  const logged: string[] = [];
  const certFile = () => join(dir, 'server.pem');
  const keyFile = () => join(dir, 'server-key.pem');

  /** Writes a pair the way a renewal tool does: each file replaced by a rename. */
  function installPair(cert: string, key: string): void {
    writeFileSync(`${keyFile()}.new`, key);
    renameSync(`${keyFile()}.new`, keyFile());
    writeFileSync(`${certFile()}.new`, cert);
    renameSync(`${certFile()}.new`, certFile());
  }

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tls-reload-'));
    ca = await createCa({ commonName: 'tls reload test CA' });
    const first = await issueServerCertificate(ca, NAMES);
    installPair(first.cert + ca.cert, first.key);
    mock = await startMockOpenAI();
    const configFile = join(dir, 'config.json');
    writeFileSync(
      configFile,
      JSON.stringify({
        providers: [{ id: 'mock', kind: 'openai', base_url: mock.baseUrl, api_key_env: 'MOCK_TLS_KEY' }],
        models: [
          {
            id: 'mock/m1',
            providers: [{ provider: 'mock', model: 'm1' }],
            pricing: { input_per_mtok: 1, output_per_mtok: 1 },
          },
        ],
      }),
    );
    const env = {
      GATEWAY_DATA_DIR: dir,
      GATEWAY_PORT: '0',
      CONSOLE_PORT: '0',
      COLLECTOR_PORT: '0',
      GATEWAY_SURFACES: 'gateway,console',
      TLS_CERT_FILE: certFile(),
      TLS_KEY_FILE: keyFile(),
      TLS_WATCH_INTERVAL_MS: '100',
      GATEWAY_CONFIG: configFile,
      MOCK_TLS_KEY: 'sk-mock',
    };
    const sink = new Writable({
      write(chunk, _encoding, done) {
        logged.push(String(chunk));
        done();
      },
    });
    running = await startGateway(readSettings(env), pino({ level: 'info' }, sink), { ...process.env, ...env });
  });

  after(async () => {
    await running?.stop();
    await mock?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('serves a renewed pair to new handshakes while clients keep calling, keeps open connections, and refuses a bad pair', async () => {
    const dispatcher = new Agent({ connect: { ca: ca.cert, servername: 'localhost' }, keepAliveTimeout: 10_000 });
    const call = httpCaller(dispatcher);
    const { organization } = await ensureOrganization(running.store, 'tls-reload', 'tls-reload');
    const { secret: token } = await createConsoleToken(running.store, {
      organizationId: organization.id,
      name: 't',
      permission: 'admin',
    });
    const created = await call(running.urls.console, 'POST', `/v1/organizations/${organization.id}/api_keys`, {
      token,
      body: { name: 'k' },
    });
    assert.equal(created.status, 201, created.text);
    const key = created.json.key as string;
    const before = await handshakeFingerprint(running.urls.gateway, ca.cert);

    // A connection opened before the renewal, kept open through it.
    const { hostname, port } = new URL(running.urls.gateway);
    const early = connect({ host: hostname, port: Number(port), ca: ca.cert, servername: 'localhost' });
    await once(early, 'secureConnect');

    const load = steadyLoad(4, async (worker) => {
      const answer = await call(running.urls.gateway, 'POST', '/v1/chat/completions', {
        token: key,
        body: { model: 'mock/m1', messages: [{ role: 'user', content: `hi ${worker}` }], stream: worker % 2 === 0 },
      });
      if (answer.status !== 200) throw new Error(`status ${answer.status}: ${answer.text.slice(0, 200)}`);
    });
    // And clients that open a new connection for every call, through the renewal.
    const freshConnections = steadyLoad(2, async () => {
      const fresh = new Agent({ connect: { ca: ca.cert, servername: 'localhost' } });
      try {
        const answer = await httpCaller(fresh)(running.urls.gateway, 'GET', '/v1/models', { token: key });
        if (answer.status !== 200) throw new Error(`status ${answer.status}`);
      } finally {
        await fresh.close();
      }
    });
    try {
      await load.more(20);
      const renewed = await issueServerCertificate(ca, NAMES);
      const renewedFingerprint = new X509Certificate(renewed.cert).fingerprint256;
      assert.notEqual(renewedFingerprint, before);
      installPair(renewed.cert + ca.cert, renewed.key);
      await waitFor(
        async () => (await handshakeFingerprint(running.urls.gateway, ca.cert)) === renewedFingerprint || undefined,
        {
          timeoutMs: 5_000,
        },
      );
      await Promise.all([load.more(20), freshConnections.more(10)]);

      // The connection from before the renewal still answers, with the certificate it negotiated.
      assert.equal(await statusOn(early, '/healthz'), 200);
      assert.equal(early.getPeerX509Certificate()!.fingerprint256, before);

      // A certificate whose key is not the one installed with it: refused, the renewed pair stays.
      const other = await issueServerCertificate(ca, NAMES);
      installPair(other.cert + ca.cert, renewed.key);
      await waitFor(
        () => logged.some((line) => line.includes('the new TLS certificate or key was refused')) || undefined,
        {
          timeoutMs: 5_000,
        },
      );
      assert.equal(await handshakeFingerprint(running.urls.gateway, ca.cert), renewedFingerprint);
      await load.more(20);
    } finally {
      await load.stop();
      await freshConnections.stop();
      early.destroy();
      await dispatcher.close();
    }
    assert.deepEqual(load.failures, []);
    assert.deepEqual(freshConnections.failures, []);
    assert.ok(load.completed() >= 60, `calls completed: ${load.completed()}`);
    assert.ok(logged.some((line) => line.includes('TLS certificate reloaded')));
  });
});

describe('the local CA leaf changing while the gateway runs', () => {
  it('re-issues an expired leaf on reload but never installs one not valid now; follows a leaf another process renewed', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'tls-renew-'));
    const logger = pino({ level: 'silent' });
    try {
      const options = { dataDir, extraNames: [] as string[] };
      const material = await loadTls(options);
      assert.ok(material.generated);
      const swapped: string[] = [];
      const server = { setSecureContext: (context: { cert: string }) => void swapped.push(context.cert) };
      // 400 days on: the 397-day leaf has expired by then, the 10-year CA has not.
      const later = new TlsReloader(material, {
        tls: { ...options, now: new Date(Date.now() + 400 * 24 * 3600 * 1000) },
        logger,
        watchIntervalMs: 60_000,
      });
      later.start([server as unknown as TlsServer]);
      try {
        const renewed = await later.reload();
        // The clock is ahead, so the re-issued leaf starts in 400 days: the validity check refuses it
        // (a real renewal, 30 days before expiry, issues one valid now).
        assert.equal(renewed.result, 'rejected');
        assert.match((renewed as { error: string }).error, /valid only from/);
        assert.equal(swapped.length, 0, 'a pair not valid now is never installed');
      } finally {
        later.stop();
      }

      // Another instance sharing the data dir renews the leaf: this one follows the files.
      const reloader = new TlsReloader(await loadTls(options), { tls: options, logger, watchIntervalMs: 50 });
      reloader.start([server as unknown as TlsServer]);
      try {
        const ca = {
          cert: readFileSync(join(dataDir, 'tls', 'ca.pem'), 'utf8'),
          key: readFileSync(join(dataDir, 'tls', 'ca-key.pem'), 'utf8'),
        };
        const leaf = await issueServerCertificate(ca, serverNames({}));
        writeFileSync(join(dataDir, 'tls', 'key.pem'), leaf.key);
        writeFileSync(join(dataDir, 'tls', 'cert.pem'), leaf.cert + ca.cert);
        await waitFor(() => swapped.length > 0 || undefined, {
          timeoutMs: 5_000,
          what: 'the renewed leaf to be installed',
        });
        assert.equal(swapped.at(-1), leaf.cert + ca.cert);
        assert.equal(reloader.cert, leaf.cert + ca.cert);
      } finally {
        reloader.stop();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
