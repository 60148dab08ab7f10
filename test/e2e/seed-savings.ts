import { randomUUID } from 'node:crypto';
import type { Store } from '../../src/store/database.js';
import type { UsageRecordsTable } from '../../src/store/schema.js';
import { Catalogue } from '../../src/catalogue/catalogue.js';
import { costMicroUsd } from '../../src/catalogue/cost.js';

const DAY = 86_400_000;
const HOUR = 3_600_000;

/** A seeded PRNG (mulberry32), so the screenshot shows the same data on every run. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

interface Profile {
  keyId: string;
  /** Models and their share of the key's requests. */
  models: Array<[model: string, share: number]>;
  requestsPerDay: [number, number];
  input: [number, number];
  output: [number, number];
  /** Share of input read from the cache, and written to it. */
  cacheRead: [number, number];
  cacheWrite: [number, number];
  /** Share of requests compressed, and the share of their input removed. */
  compressed: number;
  removed: [number, number];
}

export interface SeedKeys {
  claudeCode: string;
  codex: string;
  backend: string;
  support: string;
}

/**
 * Thirty days of usage that looks like a team's: coding agents on Claude (heavy prompt caching,
 * compression on) and Codex, a backend on a small OpenAI model, a support bot on Haiku. Costs
 * are priced with the built-in catalogue; compression savings are recorded for the last twelve
 * days (as if the request path had started recording them then) and left null before, so the
 * Savings page shows both recorded and estimated figures.
 */
export async function seedSavings(store: Store, organizationId: string, keys: SeedKeys, now = Date.now()) {
  const catalogue = new Catalogue({});
  const next = random(20);
  const between = ([low, high]: [number, number]) => low + (high - low) * next();
  const profiles: Profile[] = [
    {
      keyId: keys.claudeCode,
      models: [
        ['anthropic/claude-sonnet-4-5', 0.8],
        ['anthropic/claude-haiku-4-5', 0.2],
      ],
      requestsPerDay: [25, 45],
      input: [40_000, 140_000],
      output: [400, 3_000],
      cacheRead: [0.72, 0.9],
      cacheWrite: [0.04, 0.12],
      compressed: 0.95,
      removed: [0.18, 0.34],
    },
    {
      keyId: keys.codex,
      models: [['openai/gpt-5', 1]],
      requestsPerDay: [15, 30],
      input: [20_000, 90_000],
      output: [300, 2_500],
      cacheRead: [0.55, 0.78],
      cacheWrite: [0, 0],
      compressed: 0.9,
      removed: [0.14, 0.3],
    },
    {
      keyId: keys.backend,
      models: [
        ['openai/gpt-4.1-mini', 0.7],
        ['openai/gpt-4o', 0.3],
      ],
      requestsPerDay: [60, 120],
      input: [1_200, 6_000],
      output: [80, 600],
      cacheRead: [0, 0.45],
      cacheWrite: [0, 0],
      compressed: 0,
      removed: [0, 0],
    },
    {
      keyId: keys.support,
      models: [['anthropic/claude-haiku-4-5', 1]],
      requestsPerDay: [30, 60],
      input: [3_000, 12_000],
      output: [150, 900],
      cacheRead: [0.35, 0.6],
      cacheWrite: [0.05, 0.15],
      compressed: 0.5,
      removed: [0.08, 0.2],
    },
  ];

  const rows: UsageRecordsTable[] = [];
  const today = now - (now % DAY);
  for (let day = 29; day >= 0; day--) {
    const start = today - day * DAY;
    const weekend = [0, 6].includes(new Date(start).getUTCDay());
    // Working hours, 07:00-22:00 UTC; before 22:00 today's rows fall in the part of the day gone
    // by, so every one of the 30 days has usage whatever the hour the suite runs at.
    const hours =
      day === 0 && now - start < 22 * HOUR
        ? { from: start, width: now - start }
        : { from: start + 7 * HOUR, width: 15 * HOUR };
    for (const profile of profiles) {
      const count = Math.round(between(profile.requestsPerDay) * (weekend ? 0.35 : 1));
      for (let i = 0; i < count; i++) {
        const createdAt = Math.floor(hours.from + next() * hours.width);
        if (createdAt >= now) continue;
        let pick = next();
        const model = profile.models.find(([, share]) => (pick -= share) <= 0)?.[0] ?? profile.models[0]![0];
        const pricing = catalogue.find(model)!.pricing;
        const input = Math.round(between(profile.input));
        const cached = Math.round(input * between(profile.cacheRead));
        const written = Math.min(input - cached, Math.round(input * between(profile.cacheWrite)));
        const output = Math.round(between(profile.output));
        const usage = {
          inputTokens: input,
          cachedInputTokens: cached,
          cacheCreationInputTokens: written,
          outputTokens: output,
          reasoningTokens: 0,
        };
        const compressed = next() < profile.compressed;
        const removed = compressed ? between(profile.removed) : 0;
        const uncompressed = compressed ? Math.round(input / (1 - removed)) : null;
        // What the request path records: the removed tokens at the price they would have been
        // paid at, mostly cache reads for agents that keep a warm cache.
        const recorded =
          uncompressed !== null && day < 12
            ? Math.round(
                (uncompressed - input) *
                  (pricing.input_per_mtok * 0.4 + (pricing.cached_input_per_mtok ?? pricing.input_per_mtok) * 0.6),
              )
            : null;
        rows.push({
          id: randomUUID(),
          request_id: `req_${randomUUID().replace(/-/g, '')}`,
          created_at: createdAt,
          organization_id: organizationId,
          api_key_id: profile.keyId,
          model,
          provider: model.slice(0, model.indexOf('/')),
          upstream_model: model.slice(model.indexOf('/') + 1),
          endpoint: model.startsWith('anthropic/') ? '/v1/messages' : '/v1/responses',
          input_tokens: input,
          cached_input_tokens: cached,
          cache_creation_input_tokens: written,
          output_tokens: output,
          reasoning_tokens: 0,
          uncompressed_input_tokens: uncompressed,
          compression_savings_micro_usd: recorded,
          cost_micro_usd: costMicroUsd(pricing, usage),
          tags: '[]',
          status_code: 200,
          error_code: null,
          latency_ms: Math.round(400 + next() * 6_000),
          stream: 1,
        });
      }
    }
  }
  for (let i = 0; i < rows.length; i += 500) {
    await store.db
      .insertInto('usage_records')
      .values(rows.slice(i, i + 500))
      .execute();
  }
  return rows.length;
}
