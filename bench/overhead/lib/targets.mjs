// The things measured. Each target starts its own server process (or, for `direct`, uses the
// mock upstream itself), says how to call POST /v1/chat/completions on it, and is checked once
// per mode (checkTarget in requests.mjs: a real request whose response must be a well-formed
// completion / SSE stream) before any load is sent. The gateway's process: gateway-process.mjs.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { spawnNode, waitForListening, waitUntil, stopChild, freePort, tail } from './processes.mjs';
import { startGatewayProcess } from './gateway-process.mjs';
import { fetchText, requestBody } from './requests.mjs';

export const TARGET_IDS = ['direct', 'bare-https', 'bare-http', 'gateway', 'portkey'];

async function startOwnServer(name, script, args, ctx) {
  const entry = spawnNode(name, [script, ...args], {
    cwd: ctx.benchDir,
    env: ctx.childEnv,
    logDir: ctx.logDir,
    ipc: true,
  });
  const line = await waitForListening(entry, 20_000);
  return { entry, url: line.url };
}

/** The mock upstream: started once, kept for the whole run. */
export async function startUpstream(ctx, chunkDelayMs) {
  const { entry, url } = await startOwnServer(
    'mock-upstream',
    join(ctx.benchDir, 'lib/mock-upstream.mjs'),
    [`--chunk-delay-ms=${chunkDelayMs}`],
    ctx,
  );
  return { entry, url, pid: entry.pid, stop: () => stopChild(entry) };
}

const OPENAI_MODEL = 'gpt-4o-mini';

function direct(ctx) {
  return {
    id: 'direct',
    label: 'direct (mock upstream, HTTP)',
    protocol: 'http',
    async start() {
      // The process measured is the mock upstream itself.
      return {
        url: `${ctx.upstream.url}/v1/chat/completions`,
        headers: { authorization: 'Bearer sk-bench' },
        body: (mode) => requestBody(OPENAI_MODEL, mode),
        pid: ctx.upstream.pid,
        stop: async () => {},
      };
    },
  };
}

function bare(ctx, plain) {
  return {
    id: plain ? 'bare-http' : 'bare-https',
    label: plain ? 'bare Node proxy, HTTP' : 'bare Node proxy, HTTPS',
    protocol: plain ? 'http' : 'https',
    async start() {
      const args = [`--upstream=${ctx.upstream.url}`, ...(plain ? ['--plain'] : [])];
      const { entry, url } = await startOwnServer(
        plain ? 'bare-http' : 'bare-https',
        join(ctx.benchDir, 'lib/bare-proxy.mjs'),
        args,
        ctx,
      );
      return {
        url: `${url}/v1/chat/completions`,
        headers: { authorization: 'Bearer sk-bench' },
        body: (mode) => requestBody(OPENAI_MODEL, mode),
        pid: entry.pid,
        stop: () => stopChild(entry),
      };
    },
  };
}

function gateway(ctx) {
  return {
    id: 'gateway',
    label: 'this gateway, HTTPS',
    protocol: 'https',
    start: () => startGatewayProcess(ctx),
  };
}

export function portkeyEntry(benchDir) {
  return join(benchDir, 'node_modules/@portkey-ai/gateway/build/start-server.js');
}

function portkey(ctx) {
  return {
    id: 'portkey',
    label: "Portkey's gateway, HTTP",
    protocol: 'http',
    async start() {
      const script = portkeyEntry(ctx.benchDir);
      if (!existsSync(script)) throw new Error(`${script} is missing (npm install --prefix bench/overhead)`);
      const port = await freePort();
      // As it ships (`npx @portkey-ai/gateway`), with --headless (no UI routes). It binds every
      // interface (its start script passes no hostname); the benchmark only sends to 127.0.0.1.
      const entry = spawnNode('portkey', [script, `--port=${port}`, '--headless'], {
        cwd: ctx.benchDir,
        env: ctx.childEnv,
        logDir: ctx.logDir,
      });
      const base = `http://127.0.0.1:${port}`;
      try {
        await waitUntil(entry, async () => (await fetchText(`${base}/`, { timeoutMs: 1000 })).status === 200, 30_000);
      } catch (error) {
        await stopChild(entry);
        throw error;
      }
      return {
        url: `${base}/v1/chat/completions`,
        headers: {
          authorization: 'Bearer sk-bench',
          'x-portkey-provider': 'openai',
          'x-portkey-custom-host': `${ctx.upstream.url}/v1`,
        },
        body: (mode) => requestBody(OPENAI_MODEL, mode),
        pid: entry.pid,
        note: 'plain HTTP (as it ships); binds all interfaces, load sent to 127.0.0.1 only',
        logs: () => tail(entry.errFile, 800),
        stop: () => stopChild(entry),
      };
    },
  };
}

export function makeTargets(ctx, ids) {
  const all = {
    direct: direct(ctx),
    'bare-https': bare(ctx, false),
    'bare-http': bare(ctx, true),
    gateway: gateway(ctx),
    portkey: portkey(ctx),
  };
  return ids.map((id) => {
    if (!all[id]) throw new Error(`unknown target "${id}" (known: ${TARGET_IDS.join(', ')})`);
    return all[id];
  });
}
