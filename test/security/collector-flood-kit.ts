import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { startHarness, type Harness, type StoreKind } from '../support/gateway-harness.js';
import { collectorClient } from '../support/collector-client.js';
import { parsePrometheusText, sampleValue } from '../support/prometheus-text.js';

// What the collector flood and retention tests share: a service with the collector's limits set
// through the environment, projects on fresh domains, and clients that post events in bulk.

export type Client = ReturnType<typeof collectorClient>;

export const page = (padding = '') => ({
  type: 'page',
  data: { title: 'Home', path: '/', ...(padding ? { properties: { padding } } : {}) },
});
export const body = (events = 1, padding = '') => ({
  data_collection: { events: Array.from({ length: events }, () => page(padding)) },
});

export async function metric(h: Harness, name: string, labels: Record<string, string> = {}): Promise<number> {
  return sampleValue(parsePrometheusText((await h.collector('GET', '/metrics')).text), name, labels);
}

export async function newProject(h: Harness, token: string, components: Array<Record<string, unknown>> = []) {
  const domain = `flood-${randomBytes(4).toString('hex')}.example.test`;
  const created = await h.console('POST', '/v1/projects', {
    token,
    body: { slug: `p-${randomBytes(4).toString('hex')}`, name: 'Flood', domains: [domain] },
  });
  assert.equal(created.status, 201, created.text);
  const attached: Array<{ id: string }> = [];
  for (const component of components) {
    const pc = await h.console('POST', `/v1/projects/${created.json.id}/components`, { token, body: component });
    assert.equal(pc.status, 201, pc.text);
    attached.push(pc.json);
  }
  return { id: created.json.id as string, domain, components: attached };
}

/** Posts `requests` bodies, `concurrency` at a time; returns the answers in order. */
export async function flood(client: Client, domain: string, requests: number, make = () => body(), concurrency = 8) {
  const answers: Array<Awaited<ReturnType<Client['call']>>> = new Array(requests);
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < requests) {
        const i = next++;
        answers[i] = await client.call('POST', domain, { body: make() });
      }
    }),
  );
  return answers;
}

export function acceptedEvents(answers: Array<{ status: number; json: any }>): number {
  return answers.filter((a) => a.status === 202).reduce((sum, a) => sum + a.json.accepted, 0);
}

export interface CollectorService {
  h: Harness;
  /** An admin console token of the service's organization. */
  token: string;
  /** A client from the default source address. */
  client: Client;
  /** A client from another loopback address: another client address to the collector. */
  from(address: string): Client;
  stop(): Promise<void>;
}

/** A service on `store` with `env` (the collector's limits), an organization, and clients. */
export async function startCollectorService(store: StoreKind, env: Record<string, string>): Promise<CollectorService> {
  const h = await startHarness({ store, env });
  const token = (await h.organization()).token;
  const clients = [collectorClient(h.running.urls.collector, h.ca)];
  return {
    h,
    token,
    client: clients[0]!,
    from(address) {
      const client = collectorClient(h.running.urls.collector, h.ca, { localAddress: address });
      clients.push(client);
      return client;
    },
    async stop() {
      for (const client of clients) await client.close();
      await h.stop();
    },
  };
}
