import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { startHarness, storeKinds, type Harness } from '../support/gateway-harness.js';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';
import { collectorClient } from '../support/collector-client.js';

/** POST /_gateway/event on the collector listener (spec 2.12, 4.3) and delivery to components. */
type Org = { id: string; token: string; slug: string };

const pageEvent = (extra: Record<string, unknown> = {}) => ({
  type: 'page',
  data: { title: 'Home', path: '/' },
  ...extra,
});

for (const store of storeKinds()) {
  describe(`collector (${store})`, () => {
    let h: Harness;
    let org: Org;
    let hook: WebhookReceiver;
    let client: ReturnType<typeof collectorClient>;
    before(async () => {
      hook = await startWebhookReceiver();
      h = await startHarness({
        store,
        env: {
          GATEWAY_WEBHOOK_ALLOW_PRIVATE: '1',
          GATEWAY_OUTBOX_POLL_MS: '50',
          GATEWAY_OUTBOX_RETRY_BASE_MS: '50',
          GATEWAY_OUTBOX_RETRY_MAX_MS: '200',
        },
      });
      org = await h.organization();
      client = collectorClient(h.running.urls.collector, h.ca);
    });
    after(async () => {
      await client.close();
      await h.stop();
      await hook.close();
    });

    async function project(components: Array<Record<string, unknown>> = []) {
      const domain = `shop-${randomBytes(4).toString('hex')}.example.test`;
      const created = await h.console('POST', '/v1/projects', {
        token: org.token,
        body: { slug: `p-${randomBytes(4).toString('hex')}`, name: 'Shop', domains: [domain] },
      });
      assert.equal(created.status, 201, created.text);
      const attached = [];
      for (const body of components) {
        const pc = await h.console('POST', `/v1/projects/${created.json.id}/components`, { token: org.token, body });
        assert.equal(pc.status, 201, pc.text);
        attached.push(pc.json);
      }
      return { id: created.json.id as string, domain, components: attached };
    }

    const post = (domain: string, body: unknown, headers: Record<string, string> = {}) =>
      client.call('POST', domain, { body, headers });

    it('stores events for the project of the Host header, answers 202 with their ids, and the warehouse keeps them', async () => {
      const p = await project([{ component_slug: 'gateway/warehouse' }]);
      const result = await post(p.domain, {
        data_collection: {
          context: {
            client: { timezone: 'Europe/Paris', screen_width: 1440 },
            page: { url: 'https://shop.example.test/', referrer: 'https://search.example/' },
            user: { anonymous_id: 'anon-1' },
          },
          events: [
            pageEvent(),
            { type: 'track', id: 'client-id-1', data: { name: 'signup', properties: { plan: 'pro' } } },
            { type: 'user', data: { user_id: 'u-1' } },
          ],
        },
      });
      assert.equal(result.status, 202, result.text);
      assert.equal(result.json.accepted, 3);
      assert.equal(result.json.ids.length, 3);
      assert.match(result.json.ids[0], /^evt_[0-9a-f]{32}$/);
      assert.equal(result.json.ids[1], 'client-id-1');
      // Delivered by the worker into the warehouse, readable through the console.
      let listed: any;
      for (let i = 0; i < 100; i++) {
        listed = await h.console('GET', `/v1/projects/${p.id}/events`, { token: org.token });
        if (listed.json.data.length === 3) break;
        await new Promise((r) => setTimeout(r, 50));
      }
      assert.equal(listed.status, 200);
      assert.equal(listed.json.data.length, 3);
      const page = listed.json.data.find((e: any) => e.type === 'page');
      assert.equal(page.object, 'event');
      assert.equal(page.data.title, 'Home');
      assert.equal(page.data.url, 'https://shop.example.test/', 'page data defaults to context.page');
      assert.equal(page.context.client.timezone, 'Europe/Paris');
      assert.equal(page.context.user.anonymous_id, 'anon-1');
      assert.ok(!Number.isNaN(Date.parse(page.timestamp)));
      const user = listed.json.data.find((e: any) => e.type === 'user');
      assert.equal(user.data.user_id, 'u-1');
      assert.equal(user.data.anonymous_id, 'anon-1');
    });

    it('a client-supplied id is stored and delivered once even when the POST is retried', async () => {
      const p = await project([{ component_slug: 'gateway/warehouse' }]);
      const body = { data_collection: { events: [pageEvent({ id: 'retry-me' })] } };
      assert.equal((await post(p.domain, body)).status, 202);
      assert.equal((await post(p.domain, body)).status, 202);
      await new Promise((r) => setTimeout(r, 300));
      const listed = await h.console('GET', `/v1/projects/${p.id}/events`, { token: org.token });
      assert.deepEqual(
        listed.json.data.map((e: any) => e.id),
        ['retry-me'],
      );
    });

    it('a client id repeated within one request, and across requests of one batch, is stored and delivered once', async () => {
      const p = await project([
        { component_slug: 'gateway/warehouse' },
        { component_slug: 'gateway/webhook', settings: { url: hook.url } },
      ]);
      const twice = {
        data_collection: {
          events: [pageEvent({ id: 'dup-1' }), { type: 'track', id: 'dup-1', data: { name: 'second' } }, pageEvent()],
        },
      };
      // Concurrent requests share a group commit: the same id arrives in one transaction several times.
      const results = await Promise.all([post(p.domain, twice), post(p.domain, twice), post(p.domain, twice)]);
      for (const result of results) assert.equal(result.status, 202, result.text);
      const delivered = () => hook.batches.filter((b) => b.project_id === p.id).flatMap((b) => b.events);
      const until = Date.now() + 10_000;
      while (delivered().length < 4 && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
      await new Promise((r) => setTimeout(r, 300));
      // Raw deliveries, not de-duplicated: one outbox row per stored event.
      assert.deepEqual(
        delivered()
          .filter((e) => e.id === 'dup-1')
          .map((e) => e.type),
        ['page'],
        'the first occurrence is the one stored, once',
      );
      assert.equal(delivered().length, 4, 'dup-1 and three events with server ids');
      const listed = await h.console('GET', `/v1/projects/${p.id}/events`, { token: org.token });
      assert.equal(listed.json.data.length, 4);
    });

    it('an unknown host gets 404 whatever the body', async () => {
      for (const body of [{ data_collection: { events: [pageEvent()] } }, { nonsense: true }]) {
        const result = await post('nobody.example.test', body);
        assert.equal(result.status, 404);
        assert.equal(result.json.error, 'Not Found');
      }
    });

    it('refuses bad bodies with 400 naming the field, malformed JSON with 400, and oversized bodies with 413', async () => {
      const p = await project();
      const cases: Array<[unknown, RegExp]> = [
        [{}, /data_collection/],
        [{ data_collection: { events: [] } }, /events/],
        [{ data_collection: { events: [{ type: 'click' }] } }, /type/],
        [{ data_collection: { events: [{ type: 'track', data: {} }] } }, /data_collection\.events\[0\]\.data/],
        [{ data_collection: { events: [pageEvent({ id: 'has space' })] } }, /id/],
        [{ data_collection: { events: [pageEvent()], context: { client: { screen_width: 'wide' } } } }, /screen_width/],
      ];
      for (const [body, param] of cases) {
        const result = await post(p.domain, body);
        assert.equal(result.status, 400, JSON.stringify(body));
        assert.equal(result.json.error, 'Bad Request');
        assert.match(result.json.message + ' ' + (result.json.param ?? ''), param, JSON.stringify(body));
      }
      const malformed = await client.call('POST', p.domain, {
        rawBody: '{"data_collection":',
        headers: { 'content-type': 'application/json' },
      });
      assert.equal(malformed.status, 400);
      const big = { data_collection: { events: [pageEvent({ data: { title: 'x'.repeat(300 * 1024) } })] } };
      const tooLarge = await post(p.domain, big);
      assert.equal(tooLarge.status, 413);
      // navigator.sendBeacon posts text/plain.
      const beacon = await client.call('POST', p.domain, {
        rawBody: JSON.stringify({ data_collection: { events: [pageEvent()] } }),
        headers: { 'content-type': 'text/plain;charset=UTF-8' },
      });
      assert.equal(beacon.status, 202);
    });

    it('answers the CORS preflight and puts CORS headers on the POST response', async () => {
      const p = await project();
      const preflight = await client.call('OPTIONS', p.domain, {
        headers: {
          origin: 'https://www.shop.example',
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'content-type',
        },
      });
      assert.equal(preflight.status, 204);
      assert.equal(preflight.headers['access-control-allow-origin'], 'https://www.shop.example');
      assert.match(String(preflight.headers['access-control-allow-methods']), /POST/);
      assert.match(String(preflight.headers['access-control-allow-headers']), /content-type/);
      const posted = await post(
        p.domain,
        { data_collection: { events: [pageEvent()] } },
        { origin: 'https://www.shop.example' },
      );
      assert.equal(posted.status, 202);
      assert.equal(posted.headers['access-control-allow-origin'], 'https://www.shop.example');
    });

    it('delivers to a webhook once per event id, retrying after failures, and only the configured event types', async () => {
      const p = await project([
        {
          component_slug: 'gateway/webhook',
          settings: { url: hook.url, batch_size: 7, event_types: ['page', 'track'] },
        },
      ]);
      hook.failNext(2);
      const accepted: string[] = [];
      for (let i = 0; i < 5; i++) {
        const result = await post(p.domain, {
          data_collection: {
            events: [pageEvent(), { type: 'track', data: { name: `t${i}` } }, { type: 'user', data: { user_id: 'u' } }],
          },
        });
        assert.equal(result.status, 202);
        accepted.push(result.json.ids[0], result.json.ids[1]);
      }
      await hook.waitFor(hook.events.size + 0);
      const until = Date.now() + 10_000;
      while (!accepted.every((id) => hook.events.has(id)) && Date.now() < until)
        await new Promise((r) => setTimeout(r, 50));
      for (const id of accepted) assert.ok(hook.events.has(id), `event ${id} delivered`);
      for (const event of hook.events.values()) assert.notEqual(event.type, 'user');
      const batch = hook.batches.find((b) => b.project_id === p.id);
      assert.equal(batch.object, 'event_batch');
      assert.equal(batch.project_component_id, p.components[0].id);
      assert.ok(batch.events.length <= 7);
    });

    it('refuses a webhook in a private range unless allowed by configuration', async () => {
      const strict = await startHarness({ store });
      try {
        const o = await strict.organization();
        const created = await strict.console('POST', '/v1/projects', {
          token: o.token,
          body: { slug: 'strict', name: 'Strict' },
        });
        for (const url of [
          'http://127.0.0.1:9/hook',
          'https://127.0.0.1/hook',
          'https://10.1.2.3/x',
          'https://[::1]/x',
          'https://169.254.169.254/latest',
          'https://localhost/x',
          'https://[::ffff:127.0.0.1]/x',
        ]) {
          const result = await strict.console('POST', `/v1/projects/${created.json.id}/components`, {
            token: o.token,
            body: { component_slug: 'gateway/webhook', settings: { url } },
          });
          assert.equal(result.status, 400, url);
          assert.equal(result.json.param, 'settings.url', url);
        }
      } finally {
        await strict.stop();
      }
    });
  });
}
