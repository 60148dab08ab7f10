import { describe, it, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { Agent, request } from 'undici';
import { openStore } from '../../src/store/database.js';
import { ensureOrganization } from '../../src/store/organizations.js';
import { createConsoleToken } from '../../src/store/console-tokens.js';
import { dropSchema, storeKinds } from '../support/gateway-harness.js';
import { startWebhookReceiver } from '../support/webhook-receiver.js';
import { REPO_ROOT } from '../cli/cli-process.js';

/**
 * Crash safety of the collector (acceptance of issue 6): 10,000 events are posted while the
 * gateway process is stopped once mid-way — SIGTERM in one run, kill -9 in the other — and
 * started again on the same data. Requests that fail while it is down are retried with the same
 * client event ids (the collector stores an id once per project), so every event ends up
 * acknowledged. Then: every acknowledged event is stored exactly once, the outbox is empty, and
 * the webhook receiver, de-duplicating by id, has every event exactly once.
 */
const TOTAL_EVENTS = 10_000;
const EVENTS_PER_REQUEST = 10;
const CONCURRENCY = 16;

interface Gateway {
  child: ChildProcess;
  urls: { console: string; collector: string };
  exited: Promise<unknown>;
}

async function spawnGateway(env: Record<string, string>): Promise<Gateway> {
  const child = spawn(process.execPath, ['--import', 'tsx', join('test', 'support', 'gateway-process.ts')], {
    cwd: REPO_ROOT,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, NODE_ENV: 'test', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr = (stderr + chunk).slice(-4000)));
  const exited = once(child, 'exit');
  const line = await new Promise<string>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`no listening line; stderr: ${stderr}`)), 30_000);
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk;
      const newline = out.indexOf('\n');
      if (newline >= 0) {
        clearTimeout(timer);
        resolve(out.slice(0, newline));
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`gateway exited (${code}) before listening; stderr: ${stderr}`));
    });
  });
  const parsed = JSON.parse(line) as { event: string; console: string; collector: string };
  assert.equal(parsed.event, 'listening');
  return { child, urls: { console: parsed.console, collector: parsed.collector }, exited };
}

const cleanups: Array<() => Promise<void>> = [];
after(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup().catch(() => undefined);
});

for (const kind of storeKinds()) {
  for (const signal of ['SIGTERM', 'SIGKILL'] as const) {
    describe(`collector restart under load (${kind}, ${signal})`, () => {
      it(
        `every acknowledged event of ${TOTAL_EVENTS} is stored once and delivered to the webhook once per id`,
        { timeout: 90_000 },
        async () => {
          const dataDir = mkdtempSync(join(tmpdir(), 'gateway-restart-'));
          const schema = kind === 'postgres' ? `t_restart_${randomBytes(5).toString('hex')}` : undefined;
          const databaseUrl = kind === 'postgres' ? process.env.GATEWAY_TEST_DATABASE_URL : undefined;
          cleanups.push(async () => {
            rmSync(dataDir, { recursive: true, force: true });
            if (schema) await dropSchema(schema);
          });
          const hook = await startWebhookReceiver();
          cleanups.push(() => hook.close());

          // Organization and console token straight in the store, as `gateway admin bootstrap` does.
          const setup = await openStore({ dataDir, databaseUrl, schema });
          const { organization } = await ensureOrganization(setup, 'restart', 'Restart');
          const { secret: token } = await createConsoleToken(setup, {
            organizationId: organization.id,
            name: 'test',
            permission: 'admin',
          });
          await setup.close();

          const env: Record<string, string> = {
            GATEWAY_DATA_DIR: dataDir,
            GATEWAY_PORT: '0',
            CONSOLE_PORT: '0',
            COLLECTOR_PORT: '0',
            LOG_LEVEL: 'error',
            GATEWAY_WEBHOOK_ALLOW_PRIVATE: '1',
            // restart.example.test is a test name: served without an ownership check in development mode only.
            GATEWAY_ENV: 'development',
            GATEWAY_OUTBOX_LEASE_MS: '2000',
            GATEWAY_OUTBOX_POLL_MS: '50',
            GATEWAY_OUTBOX_RETRY_BASE_MS: '100',
            GATEWAY_OUTBOX_RETRY_MAX_MS: '1000',
            // 10,000 events from one address in a few seconds: a load test, not a flood to refuse.
            GATEWAY_COLLECTOR_ADDRESS_RATE: '0',
            GATEWAY_COLLECTOR_ADDRESS_BURST: '0',
            GATEWAY_COLLECTOR_PROJECT_RATE: '0',
            GATEWAY_COLLECTOR_PROJECT_BURST: '0',
            ...(databaseUrl ? { DATABASE_URL: databaseUrl, DATABASE_SCHEMA: schema! } : {}),
          };
          let gateway = await spawnGateway(env);
          cleanups.push(async () => {
            gateway.child.kill('SIGKILL');
          });
          const ca = readFileSync(join(dataDir, 'tls', 'cert.pem'), 'utf8');
          const dispatcher = new Agent({
            connect: { ca, checkServerIdentity: () => undefined },
            connections: CONCURRENCY,
            keepAliveTimeout: 1_000,
          });
          cleanups.push(() => dispatcher.close());

          const consoleCall = async (path: string, body: unknown) => {
            const response = await request(gateway.urls.console + path, {
              method: 'POST',
              headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
              body: JSON.stringify(body),
              dispatcher,
            });
            const json = (await response.body.json()) as any;
            assert.equal(response.statusCode, 201, JSON.stringify(json));
            return json;
          };
          const domain = 'restart.example.test';
          const project = await consoleCall('/v1/projects', { slug: 'restart', name: 'Restart', domains: [domain] });
          await consoleCall(`/v1/projects/${project.id}/components`, {
            component_slug: 'gateway/webhook',
            settings: { url: hook.url, batch_size: 200 },
          });

          // Post 1,000 requests of 10 events; stop the gateway once half are acknowledged.
          const acknowledged = new Set<string>();
          let restarting: Promise<void> | undefined;
          let failures = 0;
          const restart = async () => {
            const old = gateway;
            old.child.kill(signal);
            await old.exited;
            gateway = await spawnGateway(env);
          };
          const requests = Array.from({ length: TOTAL_EVENTS / EVENTS_PER_REQUEST }, (_, r) => r);
          const worker = async () => {
            for (let r = requests.shift(); r !== undefined; r = requests.shift()) {
              const ids = Array.from({ length: EVENTS_PER_REQUEST }, (_, i) => `ev-${r}-${i}`);
              const body = JSON.stringify({
                data_collection: {
                  events: ids.map((id) => ({ type: 'track', id, data: { name: 'load', properties: { r } } })),
                },
              });
              // No pause while the gateway is down: requests keep coming and fail until it is back.
              for (;;) {
                try {
                  const response = await request(`${gateway.urls.collector}/_gateway/event`, {
                    method: 'POST',
                    headers: { host: domain, 'content-type': 'application/json' },
                    body,
                    dispatcher,
                  });
                  const json = (await response.body.json()) as { ids?: string[] };
                  if (response.statusCode === 202) {
                    assert.deepEqual(json.ids, ids);
                    for (const id of ids) acknowledged.add(id);
                    break;
                  }
                  failures++;
                } catch {
                  failures++;
                }
                await new Promise((resolve) => setTimeout(resolve, 50));
              }
              if (!restarting && acknowledged.size >= TOTAL_EVENTS / 2) restarting = restart();
            }
          };
          const started = Date.now();
          await Promise.all(Array.from({ length: CONCURRENCY }, worker));
          await restarting;
          assert.equal(acknowledged.size, TOTAL_EVENTS);
          const posted = Date.now();

          await hook.waitFor(TOTAL_EVENTS, 45_000);
          const delivered = Date.now();
          for (const id of acknowledged) assert.ok(hook.events.has(id), `acknowledged event ${id} delivered`);
          assert.equal(hook.events.size, TOTAL_EVENTS);

          gateway.child.kill('SIGTERM');
          await gateway.exited;
          const check = await openStore({ dataDir, databaseUrl, schema });
          try {
            const stored = await check.db
              .selectFrom('collected_events')
              .select((eb) => eb.fn.countAll<number>().as('n'))
              .executeTakeFirstOrThrow();
            assert.equal(Number(stored.n), TOTAL_EVENTS, 'each event stored once');
            const pending = await check.db
              .selectFrom('event_deliveries')
              .select((eb) => eb.fn.countAll<number>().as('n'))
              .executeTakeFirstOrThrow();
            assert.equal(Number(pending.n), 0, 'outbox empty');
          } finally {
            await check.close();
          }
          process.stdout.write(
            `# ${kind} ${signal}: ${TOTAL_EVENTS} acknowledged, ${failures} failed attempts retried, ${hook.deliveries} webhook deliveries, ${hook.duplicates} duplicates de-duplicated; posting ${posted - started} ms, delivery tail ${delivered - posted} ms\n`,
          );
        },
      );
    });
  }
}
