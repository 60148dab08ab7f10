// Hostile upstreams benchmark (issue 27, row 3). From the repository root, never in CI:
//   node --import tsx bench/attack/hostile-streams.ts                 8 streams of each kind, 60 s
//   node --import tsx bench/attack/hostile-streams.ts --kinds=huge-json --per-kind=16 --seconds=30
// A built `bin/gateway serve` (SQLite in a temp dir, default upstream bounds unless
// --gateway-env=K=V,… says otherwise) routes to one healthy mock OpenAI upstream and to one
// hostile upstream per kind (test/support/hostile-upstream.ts: no newline, one huge line, endless
// deltas, gzip bomb, stall after headers, an endless JSON answer; each would send 1.5 GiB). For
// --seconds, --per-kind clients per kind keep one hostile request each in flight (rotating chat,
// /v1/messages and /v1/responses), while a normal client streams chat completions from the
// healthy upstream, one after the other. Judged: the gateway lives, the normal client's success
// rate ≥ 99 %, the gateway's peak RSS (VmHWM) under --rss-bound-mib (512). Exit code 1 when missed.
// Options:
//   --kinds=LIST            no-newline,huge-line,endless-deltas,gzip-bomb,stall,huge-json (default: all)
//   --per-kind=N            hostile clients per kind (default 8)
//   --seconds=S             how long the attack runs (default 60); in-flight requests then finish
//   --rss-bound-mib=N       the RSS target (default 512)
//   --gateway-env=K=V,…     extra environment for the gateway
//   --no-build              do not build the gateway first
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { REPO_ROOT, buildDist } from '../../test/cli/cli-process.js';
import { startServedGateway, type ServedGateway } from '../../test/support/served-gateway.js';
import {
  HOSTILE_KINDS,
  hostileRoutes,
  startHostileUpstream,
  type HostileKind,
  type HostileUpstream,
} from '../../test/support/hostile-upstream.js';
import { startMockOpenAI } from '../../test/support/mock-upstreams/index.js';

const MIB = 1024 * 1024;
const PRICING = { input_per_mtok: 1, output_per_mtok: 2 };
/** A stalled stream is cut after this (the default is 120 s); the bench's timeouts are its only non-default setting. */
const BETWEEN_CHUNKS_MS = 10_000;
const NORMAL_TEXT = ['The ', 'quick ', 'brown ', 'fox ', 'jumps ', 'over ', 'the ', 'lazy ', 'dog.'];
const SURFACES = ['chat', 'messages', 'responses'] as const;

function option(name: string, fallback: string): string {
  const prefix = `--${name}=`;
  return process.argv.find((arg) => arg.startsWith(prefix))?.slice(prefix.length) ?? fallback;
}

function requestOf(surface: (typeof SURFACES)[number], kind: HostileKind): { path: string; body: unknown } {
  const stream = kind !== 'huge-json';
  const messages = [{ role: 'user', content: 'hello' }];
  if (surface === 'messages')
    return { path: '/v1/messages', body: { model: `anthropic/${kind}`, max_tokens: 100, stream, messages } };
  if (surface === 'responses')
    return { path: '/v1/responses', body: { model: `openai/${kind}`, stream, input: 'hello' } };
  return { path: '/v1/chat/completions', body: { model: `openai/${kind}`, stream, messages } };
}

/** The outcome of one hostile request as the attacker saw it: which error it ended with. */
function outcomeOf(status: number, text: string): string {
  const found =
    /(SSE line|SSE event|answer text kept for metering|answer) exceeded|holds its limit|content-encoding|sent no data/.exec(
      text,
    );
  return `${status} ${found ? found[0] : 'other'}`;
}

async function main(): Promise<number> {
  if (process.env.CI) {
    console.error('hostile-streams is a benchmark: not run in CI');
    return 2;
  }
  const kinds = option('kinds', HOSTILE_KINDS.join(',')).split(',') as HostileKind[];
  const perKind = Number(option('per-kind', '8'));
  const seconds = Number(option('seconds', '60'));
  const rssBoundMiB = Number(option('rss-bound-mib', '512'));
  const gatewayEnv = Object.fromEntries(
    option('gateway-env', '')
      .split(',')
      .filter(Boolean)
      .map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)]),
  );
  if (!process.argv.includes('--no-build')) buildDist();

  const healthy = await startMockOpenAI();
  healthy.setScenario({ textChunks: NORMAL_TEXT });
  const upstreams = new Map<HostileKind, HostileUpstream>();
  for (const kind of kinds) upstreams.set(kind, await startHostileUpstream(kind, { maxBytes: 1536 * MIB }));
  const { providers, models } = hostileRoutes(healthy.baseUrl, upstreams, PRICING);
  const gateway: ServedGateway = await startServedGateway({
    env: { MOCK_KEY: 'sk-bench', ...gatewayEnv },
    config: {
      providers,
      models,
      timeouts: { between_chunks_ms: BETWEEN_CHUNKS_MS },
      retry: { max_attempts: 1, base_delay_ms: 0, max_delay_ms: 0 },
    },
  });
  const base = gateway.serve.urls.gateway;
  const idle = gateway.memory();
  console.log(
    `gateway pid ${gateway.pid}, RSS idle ${((idle?.rss ?? 0) / MIB).toFixed(0)} MiB; attack for ${seconds} s`,
  );

  const deadline = performance.now() + seconds * 1000;
  const normal = { ok: 0, failed: 0, failures: new Map<string, number>() };
  const hostile = new Map<HostileKind, Map<string, number>>();
  let rssMax = 0;
  /** The largest V8 heap in use and external (Buffer) memory the gateway's /metrics reported. */
  const breakdownMax = { heapUsed: 0, external: 0 };
  const count = (map: Map<string, number>, key: string) => map.set(key, (map.get(key) ?? 0) + 1);

  async function normalClient(): Promise<void> {
    const expected = NORMAL_TEXT.join('');
    while (performance.now() < deadline) {
      try {
        const result = await Promise.race([
          gateway.client.call(`${base}/v1/chat/completions`, 'POST', {
            token: gateway.key,
            body: { model: 'openai/healthy', stream: true, messages: [{ role: 'user', content: 'hello' }] },
          }),
          delay(10_000).then(() => undefined),
        ]);
        if (!result) count(normal.failures, 'timeout (10 s)');
        else if (result.status !== 200) count(normal.failures, `HTTP ${result.status}`);
        else if (!result.text.includes('[DONE]') || !streamed(result.text).startsWith(expected))
          count(normal.failures, 'incomplete stream');
        else {
          normal.ok++;
          continue;
        }
      } catch (error) {
        count(normal.failures, `connection: ${(error as Error).message.slice(0, 60)}`);
      }
      normal.failed++;
    }
  }

  async function attacker(kind: HostileKind, index: number): Promise<void> {
    const outcomes = hostile.get(kind) ?? new Map<string, number>();
    hostile.set(kind, outcomes);
    for (let n = index; performance.now() < deadline; n++) {
      const { path, body } = requestOf(SURFACES[n % SURFACES.length]!, kind);
      try {
        const result = await gateway.client.call(`${base}${path}`, 'POST', { token: gateway.key, body });
        count(outcomes, outcomeOf(result.status, result.text));
      } catch (error) {
        count(outcomes, `connection: ${(error as Error).message.slice(0, 60)}`);
      }
    }
  }

  const sampler = (async () => {
    let lastScrape = 0;
    while (performance.now() < deadline && gateway.alive()) {
      rssMax = Math.max(rssMax, gateway.memory()?.rss ?? 0);
      if (performance.now() - lastScrape >= 1000) {
        lastScrape = performance.now();
        const metrics = await gateway.client.call(`${base}/metrics`, 'GET').catch(() => undefined);
        const gauge = (name: string) =>
          Number(new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)`, 'm').exec(metrics?.text ?? '')?.[1] ?? 0);
        breakdownMax.heapUsed = Math.max(breakdownMax.heapUsed, gauge('nodejs_heap_size_used_bytes'));
        breakdownMax.external = Math.max(breakdownMax.external, gauge('nodejs_external_memory_bytes'));
      }
      await delay(250);
    }
  })();
  const started = performance.now();
  await Promise.all([
    normalClient(),
    sampler,
    ...kinds.flatMap((kind) => Array.from({ length: perKind }, (_, i) => attacker(kind, i))),
  ]);
  const elapsed = (performance.now() - started) / 1000;
  const alive = gateway.alive();
  const memory = gateway.memory();
  const peak = Math.max(memory?.peak ?? 0, rssMax);

  const total = normal.ok + normal.failed;
  const successRate = total === 0 ? 0 : normal.ok / total;
  const upstreamBytes = Object.fromEntries(
    [...upstreams].map(([kind, u]) => [
      kind,
      {
        exchanges: u.exchanges.length,
        closedEarly: u.exchanges.filter((e) => e.closedEarly).length,
        maxMiBLetIn: Math.max(0, ...u.exchanges.map((e) => e.bytesWritten)) / MIB,
      },
    ]),
  );
  const met = alive && successRate >= 0.99 && peak < rssBoundMiB * MIB;
  const report = {
    at: new Date().toISOString(),
    kinds,
    perKind,
    seconds: elapsed,
    gatewayEnv,
    alive,
    normal: { ok: normal.ok, failed: normal.failed, successRate, failures: Object.fromEntries(normal.failures) },
    rssIdleMiB: (idle?.rss ?? 0) / MIB,
    rssPeakMiB: peak / MIB,
    rssBoundMiB,
    heapUsedMaxMiB: breakdownMax.heapUsed / MIB,
    externalMaxMiB: breakdownMax.external / MIB,
    hostile: Object.fromEntries([...hostile].map(([kind, outcomes]) => [kind, Object.fromEntries(outcomes)])),
    upstreams: upstreamBytes,
    met,
  };
  console.log(JSON.stringify(report, null, 2));
  console.log(
    `${met ? 'MET' : 'MISSED'}: gateway ${alive ? 'alive' : 'DEAD'}, normal client ${(successRate * 100).toFixed(2)} % of ${total}, ` +
      `RSS peak ${(peak / MIB).toFixed(0)} MiB (bound ${rssBoundMiB} MiB)`,
  );
  const dir = join(REPO_ROOT, 'bench', '.results');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, `hostile-streams-${report.at.replace(/[:.]/g, '-')}.json`), JSON.stringify(report, null, 2));

  await gateway.stop();
  await Promise.all([healthy.close(), ...[...upstreams.values()].map((u) => u.close())]);
  return met ? 0 : 1;
}

/** The content deltas of a chat completions stream, joined. */
function streamed(text: string): string {
  let out = '';
  for (const line of text.split('\n')) {
    if (!line.startsWith('data: {')) continue;
    out +=
      (JSON.parse(line.slice(6)) as { choices?: Array<{ delta?: { content?: string } }> }).choices?.[0]?.delta
        ?.content ?? '';
  }
  return out;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
