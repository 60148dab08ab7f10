import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { waitFor } from '../support/chat-kit.js';
import { buildDist, httpsClient, startServe, type ServeProcess } from './cli-process.js';

/**
 * Issue 27 row 7 in the build users run: `bin/gateway serve` with no access-log settings writes
 * a refused request's line to stderr, the process's log stream, at the default level.
 */
before(() => buildDist(), { timeout: 120_000 });

describe('bin/gateway serve: the access log on stderr', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'gateway-access-'));
  let serve: ServeProcess | undefined;
  let client: ReturnType<typeof httpsClient>;

  before(async () => {
    serve = await startServe('bin', {
      GATEWAY_DATA_DIR: dataDir,
      GATEWAY_PORT: '0',
      CONSOLE_PORT: '0',
      COLLECTOR_PORT: '0',
    });
    client = httpsClient(readFileSync(join(dataDir, 'tls', 'cert.pem'), 'utf8'));
  });
  after(async () => {
    await serve?.stop();
    await client?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const accessLine = (reqId: string) =>
    waitFor(
      () =>
        serve!
          .stderr()
          .split('\n')
          .filter((line) => line.includes(`"reqId":"${reqId}"`))
          .map((line) => JSON.parse(line) as Record<string, unknown>)
          .find((line) => line.log === 'access'),
      { what: `the access line of ${reqId}` },
    );

  it('a 401 at the gateway and a 401 at the console each leave an info access line on stderr, without the credential', async () => {
    const gateway = await client.call(`${serve!.urls.gateway}/v1/models`, 'GET', {
      token: 'sk-presented-secret',
      headers: { 'x-request-id': 'process-gateway-401' },
    });
    assert.equal(gateway.status, 401);
    const console = await client.call(`${serve!.urls.console}/v1/organizations/org_x/api_keys`, 'GET', {
      token: 'console-presented-secret',
      headers: { 'x-request-id': 'process-console-401' },
    });
    assert.equal(console.status, 401);

    const gatewayLine = await accessLine('process-gateway-401');
    assert.deepEqual(
      [
        gatewayLine.level,
        gatewayLine.surface,
        gatewayLine.route,
        gatewayLine.status,
        gatewayLine.code,
        gatewayLine.key,
      ],
      [30, 'gateway', '/v1/models', 401, 'unauthorized', null],
    );
    const consoleLine = await accessLine('process-console-401');
    assert.deepEqual([consoleLine.surface, consoleLine.status, consoleLine.code], ['console', 401, 'Unauthorized']);
    assert.doesNotMatch(serve!.stderr(), /presented-secret/);
    assert.doesNotMatch(serve!.stdout(), /"log":"access"/, 'stdout carries only the promised lines');
  });
});
