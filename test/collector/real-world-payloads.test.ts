import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { startHarness, storeKinds, type Harness } from '../support/gateway-harness.js';
import { collectorClient } from '../support/collector-client.js';

/**
 * Issue 20, item 4: the collector stores what it understands and keeps the rest. The payloads
 * below are shaped like what Edgee's data layer and JS SDK send (spec 2.12 plus the members
 * real SDKs add): `components` and `consent` on `data_collection` and on events, `from` on
 * events, context sections and members the spec does not list (`session`, `client.locale`,
 * `client.user_agent`), e-commerce `products` in track properties, and a batch-level `sent_at`.
 * Everything is read back through the console, from the warehouse component.
 */
const edgeeDataLayer = {
  data_collection: {
    consent: 'granted',
    components: { all: false, google_analytics: true, 'gateway/warehouse': true },
    context: {
      page: {
        name: 'With Edgee',
        category: 'demo',
        title: 'With Edgee',
        url: 'https://demo.example.test/with-edgee.html',
        path: '/with-edgee.html',
        search: '?ok',
        referrer: 'https://demo.example.test/previous-page',
        keywords: ['demo', 'tag manager', 'edgee'],
        properties: { section: 'political', pv: 1 },
      },
      user: {
        user_id: '123456',
        anonymous_id: 'anon-2f1e',
        properties: { email: 'jane@example.test', plan: 'free' },
      },
      client: {
        timezone: 'Europe/Paris',
        screen_width: 1512,
        screen_height: 982,
        screen_density: 2,
        locale: 'fr-FR',
        user_agent:
          'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
        user_agent_architecture: 'arm',
        user_agent_bitness: '64',
        user_agent_model: '',
        user_agent_full_version_list: 'Google Chrome;131.0.6778.86|Chromium;131.0.6778.86|Not_A Brand;24.0.0.0',
        os_name: 'macOS',
        os_version: '15.1.0',
      },
      campaign: {
        name: 'black-friday',
        source: 'newsletter',
        medium: 'email',
        term: 'shoes',
        content: 'hero',
        creative_format: 'banner',
        marketing_tactic: 'prospecting',
        gclid: 'Cj0KCQiA',
      },
      session: { session_id: '1731579999', session_count: 3, session_start: false },
    },
    events: [
      { type: 'page', data: { title: 'With Edgee — home' }, components: { all: true }, from: 'client' },
      {
        type: 'track',
        data: {
          name: 'add_to_cart',
          properties: {
            currency: 'EUR',
            value: 129.9,
            products: [{ sku: 'SKU-42', name: 'Trail shoe', price: 129.9, quantity: 1, category: 'shoes' }],
          },
        },
        consent: 'pending',
        from: 'client',
      },
      { type: 'user', data: { properties: { plan: 'pro' } }, from: 'edge', context: { client: { locale: 'en-GB' } } },
    ],
  },
  sent_at: '2025-11-28T09:30:00.000Z',
};

for (const store of storeKinds()) {
  describe(`collector keeps the members real payloads carry (${store})`, () => {
    let h: Harness;
    let token: string;
    let client: ReturnType<typeof collectorClient>;
    before(async () => {
      h = await startHarness({ store, env: { GATEWAY_OUTBOX_POLL_MS: '50' } });
      token = (await h.organization()).token;
      client = collectorClient(h.running.urls.collector, h.ca);
    });
    after(async () => {
      await client.close();
      await h.stop();
    });

    async function projectWithWarehouse() {
      const domain = `site-${randomBytes(4).toString('hex')}.example.test`;
      const created = await h.console('POST', '/v1/projects', {
        token,
        body: { slug: `s-${randomBytes(4).toString('hex')}`, name: 'Site', domains: [domain] },
      });
      assert.equal(created.status, 201, created.text);
      const pc = await h.console('POST', `/v1/projects/${created.json.id}/components`, {
        token,
        body: { component_slug: 'gateway/warehouse' },
      });
      assert.equal(pc.status, 201, pc.text);
      return { id: created.json.id as string, domain };
    }

    async function stored(projectId: string, count: number): Promise<any[]> {
      for (let i = 0; i < 200; i++) {
        const listed = await h.console('GET', `/v1/projects/${projectId}/events`, { token });
        assert.equal(listed.status, 200, listed.text);
        if (listed.json.data.length >= count) return listed.json.data;
        await new Promise((r) => setTimeout(r, 50));
      }
      throw new Error(`fewer than ${count} events stored`);
    }

    it('an Edgee data layer with page, track and user events is accepted and stored with every member it carries', async () => {
      const p = await projectWithWarehouse();
      const result = await client.call('POST', p.domain, {
        rawBody: JSON.stringify(edgeeDataLayer),
        headers: { 'content-type': 'text/plain;charset=UTF-8' },
      });
      assert.equal(result.status, 202, result.text);
      assert.equal(result.json.accepted, 3);
      const events = await stored(p.id, 3);
      const byType = Object.fromEntries(events.map((e) => [e.type, e]));
      const { page, track, user } = byType;

      // Known members: validated and extracted as before (page data defaults to context.page).
      assert.equal(page.data.title, 'With Edgee — home');
      assert.equal(page.data.url, 'https://demo.example.test/with-edgee.html');
      assert.deepEqual(page.data.keywords, ['demo', 'tag manager', 'edgee']);
      assert.equal(user.data.user_id, '123456', 'user data defaults to context.user');
      assert.equal(user.data.anonymous_id, 'anon-2f1e');
      assert.deepEqual(user.data.properties, { plan: 'pro' });
      assert.equal(track.data.name, 'add_to_cart');
      assert.deepEqual(
        track.data.properties.products,
        edgeeDataLayer.data_collection.events[1]!.data.properties!.products,
      );

      // Event members: the event's own, else data_collection's, else the body's.
      assert.deepEqual(page.components, { all: true });
      assert.equal(page.consent, 'granted');
      assert.equal(page.from, 'client');
      assert.deepEqual(track.components, edgeeDataLayer.data_collection.components);
      assert.equal(track.consent, 'pending');
      assert.equal(user.from, 'edge');
      for (const event of events) assert.equal(event.sent_at, '2025-11-28T09:30:00.000Z');

      // Context: unknown sections and members kept, the event's own laid over the request's.
      assert.deepEqual(page.context.session, edgeeDataLayer.data_collection.context.session);
      assert.equal(page.context.client.locale, 'fr-FR');
      assert.match(page.context.client.user_agent, /Chrome\/131/);
      assert.equal(page.context.client.os_name, 'macOS');
      assert.equal(page.context.campaign.gclid, 'Cj0KCQiA');
      assert.equal(user.context.client.locale, 'en-GB');
      assert.equal(user.context.client.timezone, 'Europe/Paris');

      // The server's members stay the server's.
      for (const event of events) {
        assert.match(event.id, /^evt_[0-9a-f]{32}$/);
        assert.ok(!Number.isNaN(Date.parse(event.timestamp)));
        assert.equal(event.object, 'event');
      }
    });

    it('a member named like one the server sets is kept under client_members, not over the server value', async () => {
      const p = await projectWithWarehouse();
      const result = await client.call('POST', p.domain, {
        body: {
          data_collection: {
            type: 'batch',
            events: [
              {
                type: 'track',
                id: 'client-evt-1',
                data: { name: 'signup' },
                timestamp: '2020-01-01T00:00:00Z',
                object: 'mine',
                uuid: '7d3c',
              },
            ],
          },
        },
      });
      assert.equal(result.status, 202, result.text);
      const [event] = await stored(p.id, 1);
      assert.equal(event.id, 'client-evt-1');
      assert.equal(event.type, 'track');
      assert.notEqual(event.timestamp, '2020-01-01T00:00:00Z');
      assert.equal(event.object, 'event');
      assert.equal(event.uuid, '7d3c');
      assert.deepEqual(event.client_members, {
        type: 'batch',
        timestamp: '2020-01-01T00:00:00Z',
        object: 'mine',
      });
    });

    it('known members are still validated: a wrong type is a 400 naming it, whatever else the event carries', async () => {
      const p = await projectWithWarehouse();
      const cases: Array<[unknown, string]> = [
        [
          { data_collection: { consent: 'granted', events: [{ type: 'track', data: {}, from: 'client' }] } },
          'data_collection.events[0].data.name',
        ],
        [{ data_collection: { events: [{ type: 'click', components: {} }] } }, 'data_collection.events[0].type'],
        [
          {
            data_collection: {
              context: { client: { screen_width: 'wide', locale: 'fr' } },
              events: [{ type: 'page' }],
            },
          },
          'data_collection.context.client.screen_width',
        ],
        [
          { data_collection: { events: [{ type: 'page', context: { page: { keywords: 'a,b' } } }] } },
          'data_collection.events[0].context.page.keywords',
        ],
      ];
      for (const [body, param] of cases) {
        const result = await client.call('POST', p.domain, { body });
        assert.equal(result.status, 400, JSON.stringify(body));
        assert.equal(result.json.param, param, result.text);
      }
    });
  });
}
