// The normal client of the attack bench: an open-loop mix of what real clients do, sent while
// an attack runs, and the summary of its samples.
import { Agent, request } from 'undici';
import { sleep } from '../overhead/lib/processes.mjs';
import { fetchText } from '../overhead/lib/requests.mjs';
import { COLLECTOR_HOST } from './service-probes.mjs';

const NORMAL_TIMEOUT_MS = 10_000;

// The normal client: an open-loop mix of what real clients do, on keep-alive connections like
// the SDKs, plus one request in five on a fresh connection (a new client must get in too).
export class NormalClient {
  constructor(service) {
    this.service = service;
    this.dispatcher = new Agent({
      connect: { rejectUnauthorized: false },
      keepAliveTimeout: 30_000,
      headersTimeout: NORMAL_TIMEOUT_MS,
      bodyTimeout: NORMAL_TIMEOUT_MS,
    });
    this.window = undefined;
    this.inFlight = 0;
    this.n = 0;
  }

  kinds() {
    const { urls, key } = this.service;
    const auth = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
    return [
      {
        kind: 'chat',
        url: `${urls.gateway}/v1/chat/completions`,
        method: 'POST',
        headers: auth,
        body: JSON.stringify({
          model: 'openai/gpt-4o-mini',
          messages: [{ role: 'user', content: 'Say hello in one short sentence.' }],
          max_tokens: 32,
        }),
      },
      {
        kind: 'count_tokens',
        url: `${urls.gateway}/v1/count_tokens`,
        method: 'POST',
        headers: auth,
        body: JSON.stringify({
          model: 'openai/gpt-4o-mini',
          messages: [{ role: 'user', content: 'How many tokens is this sentence?' }],
        }),
      },
      { kind: 'models', url: `${urls.gateway}/v1/models`, method: 'GET', headers: auth },
      {
        kind: 'event',
        url: `${urls.collector}/_gateway/event`,
        method: 'POST',
        headers: { host: COLLECTOR_HOST, 'content-type': 'application/json' },
        body: JSON.stringify({
          data_collection: {
            context: { page: { url: `https://${COLLECTOR_HOST}/`, title: 'normal' } },
            events: [{ type: 'page', data: { path: '/' } }],
          },
        }),
      },
      { kind: 'models_new_connection', url: `${urls.gateway}/v1/models`, method: 'GET', headers: auth, fresh: true },
    ];
  }

  /** A request counts in the window it was sent in, however late its answer comes. */
  async one(spec, window) {
    const started = performance.now();
    let status = 0;
    let error;
    let refusal;
    try {
      if (spec.fresh) {
        const res = await fetchText(spec.url, {
          method: spec.method,
          headers: spec.headers,
          timeoutMs: NORMAL_TIMEOUT_MS,
        });
        status = res.status;
        if (status === 429) refusal = refusalScope(res.text);
      } else {
        const res = await request(spec.url, {
          method: spec.method,
          headers: spec.headers,
          body: spec.body,
          dispatcher: this.dispatcher,
        });
        status = res.statusCode;
        if (status === 429) refusal = refusalScope(await res.body.text());
        else await res.body.dump();
      }
    } catch (e) {
      error = e.code ?? e.name ?? String(e);
    }
    const ms = performance.now() - started;
    const ok = status >= 200 && status < 300;
    window?.samples.push({ kind: spec.kind, ms, ok, status, error: error ?? (refusal && `HTTP 429 (${refusal})`) });
  }

  /** Sends `rate` requests per second until stop(); samples are kept only inside a window (record … takeSamples). */
  start(rate) {
    const kinds = this.kinds();
    this.timer = setInterval(() => {
      // Open loop: a stalled service does not slow the client down, but more than 200 waiting
      // requests count as failures instead of piling up.
      const spec = kinds[this.n++ % kinds.length];
      const window = this.window;
      if (this.inFlight >= 200) {
        window?.samples.push({ kind: spec.kind, ms: NORMAL_TIMEOUT_MS, ok: false, error: 'client_backlog' });
        return;
      }
      this.inFlight++;
      if (window) window.pending++;
      this.one(spec, window).finally(() => {
        this.inFlight--;
        if (window) window.pending--;
      });
    }, 1000 / rate);
  }

  record() {
    this.window = { samples: [], pending: 0 };
  }

  /** Ends the window and waits for the answers of its requests (each times out after NORMAL_TIMEOUT_MS). */
  async takeSamples() {
    const window = this.window;
    this.window = undefined;
    const until = Date.now() + NORMAL_TIMEOUT_MS + 2000;
    while (window.pending > 0 && Date.now() < until) await sleep(50);
    return window.samples;
  }

  async stop() {
    clearInterval(this.timer);
    const until = Date.now() + NORMAL_TIMEOUT_MS + 1000;
    while (this.inFlight > 0 && Date.now() < until) await sleep(50);
    await this.dispatcher.close().catch(() => undefined);
  }
}

/** Which limit a collector 429 came from, by its message (src/collector/limits/limit-errors.ts). */
function refusalScope(text) {
  if (/client address/.test(text)) return 'address budget';
  if (/for this project/.test(text)) return 'project budget';
  if (/quota/.test(text)) return 'quota';
  return 'other';
}

function percentile(sorted, p) {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((sorted.length * p) / 100) - 1)];
}

export function summarize(samples) {
  const ms = samples.map((s) => s.ms).sort((a, b) => a - b);
  const failures = {};
  for (const s of samples)
    if (!s.ok) failures[s.error ?? `HTTP ${s.status}`] = (failures[s.error ?? `HTTP ${s.status}`] ?? 0) + 1;
  const byKind = {};
  for (const kind of new Set(samples.map((s) => s.kind))) {
    const of = samples.filter((s) => s.kind === kind);
    const sorted = of.map((s) => s.ms).sort((a, b) => a - b);
    byKind[kind] = {
      n: of.length,
      ok: of.filter((s) => s.ok).length,
      p50: percentile(sorted, 50),
      p99: percentile(sorted, 99),
    };
  }
  return {
    n: samples.length,
    ok: samples.filter((s) => s.ok).length,
    successRate: samples.length ? samples.filter((s) => s.ok).length / samples.length : NaN,
    p50: percentile(ms, 50),
    p99: percentile(ms, 99),
    max: ms.at(-1),
    failures,
    byKind,
  };
}
