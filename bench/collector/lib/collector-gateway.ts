import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Agent, Pool, request } from 'undici';
import { spawnGateway, type SpawnedGateway } from '../../support/spawn-gateway.js';
import { seedOrganization } from '../../support/seed-organization.js';

/** A gateway the collector benches post to: started on a seeded store, with one project. */
export interface CollectorGateway {
  gateway: SpawnedGateway;
  /** The certificate the gateway made for itself: the clients trust it. */
  ca: string;
  projectId: string;
}

/**
 * `gateway serve` (compiled `entry`, else under tsx) on the SQLite store of `dataDir` with `env`
 * added, and a project for `domain` with `components` attached, made through the console API.
 */
export async function startCollectorGateway(options: {
  dataDir: string;
  env: Record<string, string>;
  entry: string | undefined;
  project: { slug: string; name: string; domain: string };
  components: Array<Record<string, unknown>>;
}): Promise<CollectorGateway> {
  const { dataDir, project } = options;
  const { token } = await seedOrganization(dataDir, 'bench', 'Bench');
  const gateway = await spawnGateway(
    { GATEWAY_DATA_DIR: dataDir, GATEWAY_PORT: '0', CONSOLE_PORT: '0', COLLECTOR_PORT: '0', ...options.env },
    options.entry,
  );
  const ca = readFileSync(join(dataDir, 'tls', 'cert.pem'), 'utf8');
  const dispatcher = new Agent({ connect: { ca } });
  const post = async (path: string, body: unknown): Promise<any> => {
    const response = await request(gateway.urls.console + path, {
      method: 'POST',
      dispatcher,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const json = await response.body.json();
    if (response.statusCode !== 201) throw new Error(`${path}: ${response.statusCode} ${JSON.stringify(json)}`);
    return json;
  };
  try {
    const created = (await post('/v1/projects', {
      slug: project.slug,
      name: project.name,
      domains: [project.domain],
    })) as { id: string };
    for (const component of options.components) await post(`/v1/projects/${created.id}/components`, component);
    return { gateway, ca, projectId: created.id };
  } catch (error) {
    await gateway.stop();
    throw error;
  } finally {
    await dispatcher.close();
  }
}

/**
 * A connection pool to the collector listener. The certificate names localhost, the requests
 * name the project's domain: the chain is checked, the name is not. `localAddress`: another
 * loopback source address (127.0.0.2, …), another client to the collector's rate limits.
 */
export function collectorPool(
  collectorUrl: string,
  ca: string,
  options: { connections: number; localAddress?: string },
): Pool {
  return new Pool(collectorUrl, {
    connect: { ca, checkServerIdentity: () => undefined },
    connections: options.connections,
    pipelining: 1,
    keepAliveTimeout: 10_000,
    ...(options.localAddress ? { localAddress: options.localAddress } : {}),
  });
}

/** One POST /_gateway/event, prepared once and sent many times. */
export function eventRequest(domain: string, body: string) {
  return {
    path: '/_gateway/event',
    method: 'POST' as const,
    headers: { host: domain, 'content-type': 'application/json' },
    body: Buffer.from(body),
  };
}

/**
 * Sends `event` on `pool` and resolves with the status. The generator shares the cores with the
 * gateway, so each request costs it as little as undici allows: a bare dispatch handler that
 * keeps the status and drops the body (about a quarter less CPU than request()).
 */
export function postEvent(pool: Pool, event: ReturnType<typeof eventRequest>): Promise<number> {
  return new Promise((resolve, reject) => {
    let status = 0;
    pool.dispatch(event, {
      onConnect: () => undefined,
      onHeaders: (statusCode: number) => {
        status = statusCode;
        return true;
      },
      onData: () => true,
      onComplete: () => resolve(status),
      onError: reject,
    });
  });
}
