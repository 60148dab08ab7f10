import { randomUUID } from 'node:crypto';
import type { Store } from '../../src/store/database.js';
import type { UsageRecordsTable } from '../../src/store/schema.js';
import { Catalogue } from '../../src/catalogue/catalogue.js';
import { costMicroUsd } from '../../src/catalogue/cost.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

/** The three agents' User-Agents as the gateway records them (`name/version`), and their models. */
const AGENTS = [
  {
    agent: 'claude-cli/2.0.14',
    endpoint: '/v1/messages',
    models: ['anthropic/claude-sonnet-4-5', 'anthropic/claude-haiku-4-5'],
  },
  { agent: 'codex_cli_rs/0.46.0', endpoint: '/v1/responses', models: ['openai/gpt-5'] },
  {
    agent: 'opencode/0.15.2',
    endpoint: '/v1/chat/completions',
    models: ['anthropic/claude-sonnet-4-5', 'openai/gpt-5'],
  },
] as const;

const STRATEGIES = ['output_envelope', 'exact_repeats', 'near_repeats', 'command_output_cut', 'mask_old_outputs'];

export const SEEDED_MEMBERS = [
  { email: 'ada@acme.test', name: 'Ada Lovelace' },
  { email: 'grace@acme.test', name: 'Grace Hopper' },
  { email: 'linus@acme.test', name: 'Linus Torvalds' },
] as const;

/** A seeded PRNG (mulberry32): the same sessions, figures and screenshots on every run. */
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

export interface SeededSessions {
  memberIds: string[];
  /** Key id → the member who owns it. */
  keyOwners: Map<string, string>;
  sessionIds: string[];
  rows: UsageRecordsTable[];
}

/**
 * A team's week: 3 members owning 5 keys (Ada two, Grace two, Linus one), and 40 sessions of
 * Claude Code, Codex and opencode over the last six days, each with 2–14 requests: cached reads
 * and writes, compression (recorded savings and strategies) on most, a refusal or an upstream
 * error now and then. Rows carry the member the way metering records it (usage_records.member_id).
 */
export async function seedSessions(
  store: Store,
  organizationId: string,
  keyIds: readonly string[],
  now = Date.now(),
): Promise<SeededSessions> {
  if (keyIds.length !== 5) throw new Error('seedSessions wants 5 keys');
  const next = random(30);
  const between = (low: number, high: number) => low + (high - low) * next();
  const catalogue = new Catalogue({});
  const memberIds: string[] = [];
  for (const [i, member] of SEEDED_MEMBERS.entries()) {
    const id = `mem_seed_${i}_${randomUUID().slice(0, 8)}`;
    memberIds.push(id);
    await store.db
      .insertInto('organization_members')
      .values({
        id,
        organization_id: organizationId,
        email: member.email,
        name: member.name,
        role: i === 0 ? 'owner' : 'member',
        group_id: null,
        status: 'active',
        invite_digest: null,
        invite_expires_at: null,
        created_at: now - 30 * 24 * HOUR,
        updated_at: now - 30 * 24 * HOUR,
        joined_at: now - 30 * 24 * HOUR,
      })
      .execute();
  }
  const owners = [0, 0, 1, 1, 2];
  const keyOwners = new Map<string, string>();
  for (const [i, keyId] of keyIds.entries()) {
    keyOwners.set(keyId, memberIds[owners[i]!]!);
    await store.db.updateTable('api_keys').set({ member_id: memberIds[owners[i]!]! }).where('id', '=', keyId).execute();
  }

  const rows: UsageRecordsTable[] = [];
  const sessionIds: string[] = [];
  for (let s = 0; s < 40; s++) {
    const agent = AGENTS[s % 3]!;
    const keyId = keyIds[Math.floor(next() * 5)]!;
    const sessionId = agent.agent.startsWith('claude')
      ? randomUUID()
      : agent.agent.startsWith('codex')
        ? `thread_${randomUUID()}`
        : `ses_${randomUUID().replace(/-/g, '').slice(0, 24)}`;
    sessionIds.push(sessionId);
    let at = now - Math.floor(between(10 * MINUTE, 6 * 24 * HOUR));
    const count = 2 + Math.floor(next() * 13);
    for (let r = 0; r < count; r++) {
      const model = agent.models[Math.floor(next() * agent.models.length)]!;
      const pricing = catalogue.find(model)!.pricing;
      const latency = Math.round(between(600, 9_000));
      at += latency + Math.round(between(2_000, 90_000));
      if (at >= now) at = now - (count - r);
      const input = Math.round(between(8_000, 120_000));
      const cached = r === 0 ? 0 : Math.round(input * between(0.6, 0.92));
      const written = Math.min(input - cached, Math.round(input * between(0.02, 0.1)));
      const output = Math.round(between(200, 4_000));
      const refused = next() < 0.04;
      const failed = !refused && next() < 0.04;
      const compressed = !refused && r > 0 && next() < 0.8;
      const removed = compressed ? between(0.1, 0.35) : 0;
      const uncompressed = compressed ? Math.round(input / (1 - removed)) : null;
      const usage = {
        inputTokens: refused ? 0 : input,
        cachedInputTokens: refused ? 0 : cached,
        cacheCreationInputTokens: refused ? 0 : written,
        outputTokens: refused || failed ? 0 : output,
        reasoningTokens: 0,
      };
      rows.push({
        id: randomUUID(),
        request_id: `req_${randomUUID().replace(/-/g, '')}`,
        created_at: at,
        organization_id: organizationId,
        api_key_id: keyId,
        member_id: keyOwners.get(keyId)!,
        session_id: sessionId,
        agent: agent.agent,
        model,
        provider: model.slice(0, model.indexOf('/')),
        upstream_model: model.slice(model.indexOf('/') + 1),
        endpoint: agent.endpoint,
        input_tokens: usage.inputTokens,
        cached_input_tokens: usage.cachedInputTokens,
        cache_creation_input_tokens: usage.cacheCreationInputTokens,
        output_tokens: usage.outputTokens,
        reasoning_tokens: 0,
        uncompressed_input_tokens: uncompressed,
        // Every other compressed row has its saving recorded; the rest are estimated by the console.
        compression_savings_micro_usd:
          uncompressed !== null && r % 2 === 0
            ? Math.round((uncompressed - input) * pricing.input_per_mtok * 0.5)
            : null,
        compression_strategies: compressed ? STRATEGIES.filter(() => next() < 0.5).join(',') || STRATEGIES[0]! : null,
        cost_micro_usd: refused ? 0 : costMicroUsd(pricing, usage),
        tags: '[]',
        status_code: refused ? 429 : failed ? 502 : 200,
        error_code: refused ? 'budget_exceeded' : failed ? 'upstream_error' : null,
        latency_ms: refused ? 3 : latency,
        stream: 1,
      });
    }
  }
  for (let i = 0; i < rows.length; i += 200)
    await store.db
      .insertInto('usage_records')
      .values(rows.slice(i, i + 200))
      .execute();
  return { memberIds, keyOwners, sessionIds, rows };
}
