// A chat-completions client that sends no cache_control to a Claude model: what its input
// costs direct, and through the gateway (its breakpoints alone, then breakpoints and
// compression). Every turn of every session goes through the real gateway (in process, over
// HTTPS) to a mock Anthropic upstream whose usage follows Anthropic's caching rules
// (src/catalogue/prompt-cache-simulator.ts over the body it receives: breakpoints only, 20-block
// lookback, 1,024-token minimum, 5-minute TTL). Costs are priced from that usage.
//
//   node --import tsx bench/compress/gateway-caching.ts [--dataset DIR]... [--limit N]
//
// "Direct" is the same gateway with X-Gateway-Cache-Breakpoints: off and no compression: the
// body reaches the upstream as the client sent it, without a breakpoint, so nothing is cached.
import { cachePricingFor, inputCostMicroUsd, type CacheUsage } from '../../src/catalogue/cache-pricing.js';
import { PromptCacheSimulator } from '../../src/catalogue/prompt-cache-simulator.js';
import { startHarness } from '../../test/support/gateway-harness.js';
import { startMockAnthropic } from '../../test/support/mock-upstreams/index.js';
import { loadDataset, prefixes, toShape } from './dataset.js';
import { messagesBlocks } from './prompt-blocks.js';

const args = process.argv.slice(2);
const many = (name: string) => args.flatMap((a, i) => (a === name && args[i + 1] ? [args[i + 1]!] : []));
const DATASETS = many('--dataset').length
  ? many('--dataset')
  : ['/work/shared/datasets/swe-agent-trajectories', '/work/shared/datasets/mini-swe-agent-trajectories'];
const LIMIT = Number(many('--limit')[0] ?? Infinity);

const SONNET = { input_per_mtok: 3, output_per_mtok: 15, cached_input_per_mtok: 0.3, cache_write_per_mtok: 3.75 };
const PRICING = cachePricingFor('anthropic', SONNET);

const VARIANTS = [
  {
    name: 'direct (no cache_control, no gateway help)',
    upstream: 'claude-direct',
    headers: { 'x-gateway-cache-breakpoints': 'off' },
    compress: false,
  },
  { name: 'gateway breakpoints', upstream: 'claude-breakpoints', headers: {}, compress: false },
  { name: 'gateway breakpoints + compression', upstream: 'claude-compressed', headers: {}, compress: true },
] as const;

// Anthropic caches per organization: one simulated cache per variant, shared by its sessions.
const caches = new Map<string, PromptCacheSimulator>(
  VARIANTS.map((v) => [v.upstream, new PromptCacheSimulator(PRICING)]),
);
const totals = new Map<string, { cost: number; tokens: number; read: number }>();

const mock = await startMockAnthropic();
mock.setScenario((request) => {
  const body = request.body as Record<string, unknown>;
  const usage: CacheUsage = caches.get(String(body.model))!.request(messagesBlocks(body), Date.now());
  const t = totals.get(String(body.model)) ?? { cost: 0, tokens: 0, read: 0 };
  t.cost += inputCostMicroUsd(PRICING, usage);
  t.tokens += usage.uncached + usage.cacheRead + usage.cacheWrite;
  t.read += usage.cacheRead;
  totals.set(String(body.model), t);
  return {
    text: 'Next step.',
    usage: {
      inputTokens: usage.uncached + usage.cacheRead + usage.cacheWrite,
      cachedInputTokens: usage.cacheRead,
      cacheCreationInputTokens: usage.cacheWrite,
      outputTokens: 3,
    },
  };
});

const gateway = await startHarness({
  config: {
    providers: [{ id: 'mock-anthropic', kind: 'anthropic', base_url: mock.baseUrl, api_key_env: 'MOCK_KEY' }],
    models: VARIANTS.map((v) => ({
      id: `anthropic/${v.upstream}`,
      providers: [{ provider: 'mock-anthropic', model: v.upstream }],
      pricing: SONNET,
    })),
  },
  env: { MOCK_KEY: 'sk-mock' },
});
const org = await gateway.organization();
const keys = {
  plain: (await gateway.createKey(org, { name: 'plain' })).key,
  compressing: (await gateway.createKey(org, { name: 'compressing', compression: true })).key,
};

try {
  for (const dir of DATASETS) {
    totals.clear();
    const sessions = loadDataset(dir).slice(0, LIMIT);
    let requests = 0;
    for (const session of sessions) {
      for (const messages of prefixes(session)) {
        requests++;
        for (const v of VARIANTS) {
          const body = { ...toShape(messages, 'chat'), model: `anthropic/${v.upstream}` };
          const result = await gateway.gateway('POST', '/v1/chat/completions', {
            token: v.compress ? keys.compressing : keys.plain,
            headers: v.headers,
            body,
          });
          if (result.status !== 200) throw new Error(`${v.name}: ${result.status} ${result.text.slice(0, 300)}`);
        }
      }
    }
    const direct = totals.get('claude-direct')!;
    console.log(`\n== ${dir.split('/').pop()}: ${sessions.length} sessions, ${requests} requests per variant`);
    for (const v of VARIANTS) {
      const t = totals.get(v.upstream)!;
      const delta = (100 * (t.cost - direct.cost)) / direct.cost;
      console.log(
        `  ${v.name.padEnd(44)} input $${(t.cost / 1e6).toFixed(2).padStart(8)}  ${delta >= 0 ? '+' : ''}${delta.toFixed(1)} % vs direct  (${t.tokens} tokens, ${((100 * t.read) / t.tokens).toFixed(1)} % read from cache)`,
      );
    }
  }
} finally {
  await gateway.stop();
  await mock.close();
}
