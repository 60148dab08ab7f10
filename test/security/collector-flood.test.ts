import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { storeKinds } from '../support/gateway-harness.js';
import { CollectedEventStore } from '../../src/store/collected-events.js';
import { acceptedEvents, body, flood, metric, newProject, page, startCollectorService } from './collector-flood-kit.js';
import { suiteFixture } from '../support/suite-fixture.js';

/**
 * Issue 16, row 3: an unauthenticated flood of POST /_gateway/event (175k events accepted in
 * 10 s, the database 67 MB → 1.5 GB). Rate limits per client address and per project answer
 * 429 with Retry-After while other clients and projects are served; the stored-event quota
 * stops growth (retention: collector-retention.test.ts). Budgets here are burst-only (rate 0, a
 * one-hour window), so the counts are exact whatever the machine's speed.
 */

for (const store of storeKinds()) {
  describe(`collector flood: rate limits (${store})`, () => {
    const env = suiteFixture(() =>
      startCollectorService(store, {
        GATEWAY_COLLECTOR_ADDRESS_RATE: '0',
        GATEWAY_COLLECTOR_ADDRESS_BURST: '40',
        GATEWAY_COLLECTOR_PROJECT_RATE: '0',
        GATEWAY_COLLECTOR_PROJECT_BURST: '100',
        GATEWAY_COLLECTOR_BURST_WINDOW_S: '3600',
      }),
    );

    it('a flood from one address gets 429 with Retry-After once its budget is spent; another address and another project are still served', async () => {
      const a = await newProject(env.h, env.token);
      const b = await newProject(env.h, env.token);
      const attacker = env.from('127.0.0.1');
      const rejectedBefore = await metric(env.h, 'gateway_collector_requests_rejected_total', {
        reason: 'rate_limit_address',
      });

      const answers = await flood(attacker, a.domain, 60);
      assert.equal(acceptedEvents(answers), 40, 'exactly the address budget is accepted');
      const refused = answers.filter((x) => x.status === 429);
      assert.equal(refused.length, 20);
      for (const answer of refused) {
        assert.equal(answer.json.error, 'Too Many Requests');
        assert.match(answer.json.message, /client address/);
        const retryAfter = Number(answer.headers['retry-after']);
        assert.ok(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 3600, String(retryAfter));
      }
      // Refused again before the body is read: not even malformed JSON gets to the parser.
      const unread = await attacker.call('POST', a.domain, {
        rawBody: '{"data_collection":',
        headers: { 'content-type': 'application/json' },
      });
      assert.equal(unread.status, 429);

      const neighbour = env.from('127.0.0.2');
      assert.equal((await neighbour.call('POST', a.domain, { body: body() })).status, 202, 'another address');
      assert.equal((await neighbour.call('POST', b.domain, { body: body() })).status, 202, 'another project');

      const events = new CollectedEventStore(env.h.running.store);
      assert.equal(await events.countEvents(a.id), 41);
      assert.equal(await events.countEvents(b.id), 1);
      const rejectedAfter = await metric(env.h, 'gateway_collector_requests_rejected_total', {
        reason: 'rate_limit_address',
      });
      assert.equal(rejectedAfter - rejectedBefore, 21);
    });

    it("the address counted is the connection's, not X-Forwarded-For's; an address's refusals spend nothing of the project's budget", async () => {
      const p = await newProject(env.h, env.token);
      const attacker = env.from('127.0.0.8');
      // An attacker naming a new address in every request is still one address.
      let i = 0;
      const answers = await flood(attacker, p.domain, 200, () => body(), 8);
      const spoofed = await Promise.all(
        Array.from({ length: 20 }, () =>
          attacker.call('POST', p.domain, {
            body: body(),
            headers: { 'x-forwarded-for': `198.51.100.${++i}`, forwarded: `for=198.51.100.${i}` },
          }),
        ),
      );
      assert.equal(acceptedEvents([...answers, ...spoofed]), 40, 'the address budget, once');
      assert.ok(
        [...answers, ...spoofed].filter((a) => a.status === 429).every((a) => /client address/.test(a.json.message)),
      );
      // 180 requests refused by the address budget: had they been counted against the project
      // (budget 100), its own clients would now be refused too. It has 60 events left.
      const normal = env.from('127.0.0.9');
      const served = await flood(normal, p.domain, 40, () => body(), 1);
      assert.equal(acceptedEvents(served), 40);
      const second = env.from('127.0.0.10');
      const rest = await flood(second, p.domain, 21, () => body(), 1);
      assert.equal(acceptedEvents(rest), 20);
      assert.match(rest.at(-1)!.json.message, /for this project/);
      assert.equal(await new CollectedEventStore(env.h.running.store).countEvents(p.id), 100);
    });

    it("many addresses flooding one project are held by the project's budget; other projects are served", async () => {
      const target = await newProject(env.h, env.token);
      const other = await newProject(env.h, env.token);
      const answers = (
        await Promise.all(
          ['127.0.0.3', '127.0.0.4', '127.0.0.5', '127.0.0.6'].map((address) =>
            flood(env.from(address), target.domain, 20, () => body(2), 4),
          ),
        )
      ).flat();
      assert.equal(acceptedEvents(answers), 100, 'exactly the project budget is accepted');
      const refused = answers.filter((x) => x.status === 429);
      assert.ok(refused.length >= 10);
      assert.ok(refused.every((x) => /project/.test(x.json.message) && Number(x.headers['retry-after']) >= 1));
      assert.equal((await env.from('127.0.0.7').call('POST', other.domain, { body: body() })).status, 202);
      assert.equal(await new CollectedEventStore(env.h.running.store).countEvents(target.id), 100);
    });
  });

  describe(`collector flood: sizes and quota (${store})`, () => {
    const env = suiteFixture(() =>
      startCollectorService(store, {
        GATEWAY_COLLECTOR_ADDRESS_RATE: '0',
        GATEWAY_COLLECTOR_ADDRESS_BURST: '0',
        GATEWAY_COLLECTOR_PROJECT_RATE: '0',
        GATEWAY_COLLECTOR_PROJECT_BURST: '0',
        GATEWAY_COLLECTOR_QUOTA_EVENTS: '25',
        GATEWAY_COLLECTOR_QUOTA_BYTES: '20000',
        GATEWAY_COLLECTOR_MAX_EVENTS: '10',
        GATEWAY_COLLECTOR_MAX_EVENT_BYTES: '4096',
        GATEWAY_COLLECTOR_BODY_LIMIT_BYTES: '16384',
      }),
    );

    it('stored events stop growing at the quota: requests past it are refused whole with 429 and counted', async () => {
      const p = await newProject(env.h, env.token);
      const events = new CollectedEventStore(env.h.running.store);
      const before = await metric(env.h, 'gateway_collector_events_rejected_total', { reason: 'quota' });
      assert.equal((await env.client.call('POST', p.domain, { body: body(10) })).status, 202);
      assert.equal((await env.client.call('POST', p.domain, { body: body(10) })).status, 202);
      const crossing = await env.client.call('POST', p.domain, { body: body(10) });
      assert.equal(crossing.status, 429, 'ten more would make 30 > 25: refused whole');
      assert.match(crossing.json.message, /quota/);
      assert.ok(Number(crossing.headers['retry-after']) >= 1);
      assert.equal(await events.countEvents(p.id), 20);
      const answers = await flood(env.client, p.domain, 30);
      assert.equal(acceptedEvents(answers), 5);
      assert.equal(answers.filter((a) => a.status === 429).length, 25);
      assert.equal(await events.countEvents(p.id), 25);
      assert.deepEqual((await events.totals(p.id)).events, 25);
      const after = await metric(env.h, 'gateway_collector_events_rejected_total', { reason: 'quota' });
      assert.equal(after - before, 35);
      // A client retrying an id already stored is not charged again.
      const other = await newProject(env.h, env.token);
      for (let i = 0; i < 3; i++)
        assert.equal(
          (
            await env.client.call('POST', other.domain, {
              body: { data_collection: { events: [{ ...page(), id: 'same' }] } },
            })
          ).status,
          202,
        );
      assert.equal((await events.totals(other.id)).events, 1);
    });

    it('the byte quota holds too: large events stop at the stored bytes allowed', async () => {
      const p = await newProject(env.h, env.token);
      const events = new CollectedEventStore(env.h.running.store);
      const answers = await flood(env.client, p.domain, 15, () => body(1, 'x'.repeat(3000)), 1);
      const stored = await events.totals(p.id);
      assert.ok(stored.bytes <= 20000, `${stored.bytes} bytes stored`);
      assert.ok(stored.bytes > 20000 - 3500, 'the last event that fits is stored');
      assert.equal(stored.events, acceptedEvents(answers));
      assert.ok(answers.at(-1)!.status === 429);
    });

    it('sizes: a body over the limit gets 413, too many events 400, one event over its size 413 naming it; all counted', async () => {
      const p = await newProject(env.h, env.token);
      const count = (reason: string) => metric(env.h, 'gateway_collector_requests_rejected_total', { reason });
      const before = {
        body: await count('body_too_large'),
        many: await count('too_many_events'),
        event: await count('event_too_large'),
      };
      const big = await env.client.call('POST', p.domain, { body: body(1, 'x'.repeat(17_000)) });
      assert.equal(big.status, 413);
      const many = await env.client.call('POST', p.domain, { body: body(11) });
      assert.equal(many.status, 400);
      assert.equal(many.json.param, 'data_collection.events');
      // The shared context is copied into each event: the stored event, not the body, is measured.
      const oversized = await env.client.call('POST', p.domain, {
        body: {
          data_collection: {
            context: { session: { padding: 't'.repeat(1800) } },
            events: [page(), { type: 'page', data: { name: 'y'.repeat(500) }, custom: 'z'.repeat(2000) }],
          },
        },
      });
      assert.equal(oversized.status, 413, oversized.text);
      assert.equal(oversized.json.param, 'data_collection.events[1]');
      assert.equal(await new CollectedEventStore(env.h.running.store).countEvents(p.id), 0, 'nothing of it was stored');
      assert.equal((await count('body_too_large')) - before.body, 1);
      assert.equal((await count('too_many_events')) - before.many, 1);
      assert.equal((await count('event_too_large')) - before.event, 1);
    });
  });
}
