// The things measured. Each target starts its own server process (or, for `direct`, uses the
// mock upstream itself), says how to call POST /v1/chat/completions on it, and is checked once
// per mode (a real request whose response must be a well-formed completion / SSE stream)
// before any load is sent.
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { execFile } from 'node:child_process';
import { mkdirSync, writeFileSync, existsSync, readFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { spawnNode, waitForListening, waitUntil, stopChild, freePort, tail } from './processes.mjs';

const execFileAsync = promisify(execFile);

export const TARGET_IDS = ['direct', 'bare-https', 'bare-http', 'gateway', 'portkey'];

const PROMPT =
  'You are helping benchmark an LLM gateway. Read the following short note and answer in one sentence. ' +
  'The note: the gateway forwards chat completion requests to an upstream provider, meters the tokens ' +
  'of every request, enforces per-key spending limits and streams server-sent events back to the client.';

/** The same conversation for every target; only the model id differs (ours is `{author}/{model}`). */
export function requestBody(model, mode) {
  const body = {
    model,
    messages: [
      { role: 'system', content: 'You are a concise assistant.' },
      { role: 'user', content: PROMPT },
    ],
    max_tokens: 64,
  };
  if (mode === 'stream') Object.assign(body, { stream: true, stream_options: { include_usage: true } });
  return JSON.stringify(body);
}

/** A plain HTTP(S) client for set-up and checks (not used for load). Certificates are not verified: all servers are ours, on 127.0.0.1. */
export function fetchText(url, { method = 'GET', headers = {}, body, timeoutMs = 10_000 } = {}) {
  const u = new URL(url);
  const send = u.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = send(
      u,
      {
        method,
        headers: body ? { 'content-type': 'application/json', ...headers } : headers,
        rejectUnauthorized: false,
        agent: false,
      },
      (res) => {
        const parts = [];
        res.on('data', (d) => parts.push(d));
        res.on('end', () =>
          resolve({ status: res.statusCode, headers: res.headers, text: Buffer.concat(parts).toString('utf8') }),
        );
        res.on('error', reject);
      },
    );
    req.setTimeout(timeoutMs, () => req.destroy(new Error(`timeout after ${timeoutMs} ms`)));
    req.on('error', reject);
    req.end(body);
  });
}

/** Checks one real response; returns null when it is right, or a description of what is wrong. */
export async function checkTarget(target, mode) {
  let res;
  try {
    res = await fetchText(target.url, { method: 'POST', headers: target.headers, body: target.body(mode) });
  } catch (error) {
    return `request failed: ${error.message}`;
  }
  const snippet = res.text.length > 300 ? res.text.slice(0, 300) + '…' : res.text;
  if (res.status < 200 || res.status > 299) return `HTTP ${res.status}: ${snippet}`;
  const type = String(res.headers['content-type'] ?? '');
  if (mode === 'json') {
    if (!type.includes('application/json')) return `HTTP ${res.status} but content-type "${type}": ${snippet}`;
    let json;
    try {
      json = JSON.parse(res.text);
    } catch {
      return `HTTP ${res.status} but the body is not JSON: ${snippet}`;
    }
    if (
      json.object !== 'chat.completion' ||
      typeof json.choices?.[0]?.message?.content !== 'string' ||
      !(json.usage?.total_tokens > 0)
    ) {
      return `HTTP ${res.status} but not a chat.completion with content and usage: ${snippet}`;
    }
    return null;
  }
  if (!type.includes('text/event-stream')) return `HTTP ${res.status} but content-type "${type}": ${snippet}`;
  const events = res.text
    .split(/\r?\n\r?\n/)
    .map((e) => e.trim())
    .filter(Boolean);
  const chunks = events
    .filter((e) => e.startsWith('data: {'))
    .map((e) => {
      try {
        return JSON.parse(e.slice(6));
      } catch {
        return null;
      }
    });
  if (chunks.some((c) => c === null || c.object !== 'chat.completion.chunk'))
    return `stream has an event that is not a chat.completion.chunk: ${snippet}`;
  if (chunks.filter((c) => c.choices?.length).length < 2) return `stream has fewer than 2 content chunks: ${snippet}`;
  if (!chunks.some((c) => c.usage?.total_tokens > 0))
    return `stream has no usage chunk although stream_options.include_usage was sent: ${snippet}`;
  if (events[events.length - 1] !== 'data: [DONE]')
    return `stream does not end with data: [DONE]: …${res.text.slice(-200)}`;
  return null;
}

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

/**
 * The gateway's build, once per run, before the gateway target starts: `scripts/build-server.mjs`
 * (tsc, then the bundle bin/gateway runs) where the tree has it, `npx tsc -p tsconfig.build.json`
 * in older trees (a `--baseline` ref from before the bundle).
 */
export async function buildGateway(repoRoot) {
  const started = Date.now();
  const script = join(repoRoot, 'scripts/build-server.mjs');
  const [command, args] = existsSync(script)
    ? [process.execPath, [script]]
    : ['npx', ['tsc', '-p', 'tsconfig.build.json']];
  try {
    await execFileAsync(command, args, {
      cwd: repoRoot,
      maxBuffer: 16 << 20,
      timeout: 300_000,
    });
  } catch (error) {
    const output = (error.stdout ?? '') + (error.stderr ?? '') || error.message;
    const first = output.split('\n').find((line) => /error TS\d+/.test(line)) ?? output.split('\n')[0];
    throw new Error(`gateway build (${[command, ...args].join(' ')}) failed: ${first.trim()}\n${output}`);
  }
  return Date.now() - started;
}

/** `#!/usr/bin/env -S node --flag …` → ['--flag', …]. */
function shebangNodeFlags(script) {
  const first = readFileSync(script, 'utf8').split('\n', 1)[0];
  const match = /^#!\S*env -S node((?:\s+--\S+)*)\s*$/.exec(first);
  if (!match) throw new Error(`unexpected shebang in ${script}: ${first}`);
  return match[1].trim().split(/\s+/).filter(Boolean);
}

function gatewayEnv(ctx, dataDir, configFile) {
  const env = { ...ctx.childEnv };
  // The benchmark's own store (SQLite in a temp dir) and certificate, whatever the shell has set.
  for (const name of [
    'DATABASE_URL',
    'DATABASE_SCHEMA',
    'TLS_CERT_FILE',
    'TLS_KEY_FILE',
    'GATEWAY_SECRET_KEY',
    'GATEWAY_HOST',
  ])
    delete env[name];
  Object.assign(env, {
    GATEWAY_DATA_DIR: dataDir,
    GATEWAY_CONFIG: configFile,
    GATEWAY_PORT: '0',
    CONSOLE_PORT: '0',
    COLLECTOR_PORT: '0',
    MOCK_API_KEY: 'sk-bench',
  });
  if (process.env.BENCH_GATEWAY_LOG_LEVEL) env.LOG_LEVEL = process.env.BENCH_GATEWAY_LOG_LEVEL;
  return env;
}

/**
 * `bin/gateway serve` with its own data dir and config (one provider `mock`), started and listening,
 * nothing else: `startGatewayProcess` bootstraps it; the idle-memory measurement reads it as it is.
 * `name` names the process, its log files and its data dir; `env` adds to the gateway's
 * environment; `ctx.repoRoot` is the tree whose `bin/gateway` runs (cpu.mjs --baseline runs two).
 */
export async function spawnGateway(ctx, { name = 'gateway', env: extraEnv = {} } = {}) {
  const dataDir = join(ctx.tmpDir, `${name}-data`);
  mkdirSync(dataDir, { recursive: true });
  const configFile = join(ctx.tmpDir, `${name}-config.yaml`);
  writeFileSync(
    configFile,
    [
      'providers:',
      `  - {id: mock, kind: openai, base_url: "${ctx.upstream.url}/v1", api_key_env: MOCK_API_KEY}`,
      'models:',
      '  - id: openai/gpt-4o-mini',
      '    providers: [{provider: mock, model: gpt-4o-mini}]',
      '    pricing: {input_per_mtok: 0.15, output_per_mtok: 0.60, cached_input_per_mtok: 0.075}',
      '    active: true',
      '',
    ].join('\n'),
  );
  const env = { ...gatewayEnv(ctx, dataDir, configFile), ...extraEnv };
  const bin = join(ctx.repoRoot, 'bin/gateway');
  if (!existsSync(join(ctx.repoRoot, 'dist/cli/main.js')))
    throw new Error(`${ctx.repoRoot}/dist/cli/main.js is missing: the build did not run (--no-build?)`);
  if (
    existsSync(join(ctx.repoRoot, 'scripts/build-server.mjs')) &&
    !existsSync(join(ctx.repoRoot, 'dist/bundle/main.js'))
  )
    throw new Error(`${ctx.repoRoot}/dist/bundle/main.js is missing: the build did not run (--no-build?)`);

  // `gatewayNodeArgs`: node flags for the gateway process only (cpu.mjs passes --cpu-prof). The
  // process runs with the V8 flags of bin/gateway's shebang (what `bin/gateway serve` and
  // `npm start` run with): node ignores a shebang when it is given the script.
  const extraArgs = (process.env.BENCH_GATEWAY_NODE_ARGS ?? '').split(/\s+/).filter(Boolean);
  const entry = spawnNode(
    name,
    [...shebangNodeFlags(bin), ...extraArgs, ...(ctx.gatewayNodeArgs ?? []), bin, 'serve'],
    {
      cwd: ctx.repoRoot,
      env,
      logDir: ctx.logDir,
    },
  );
  let urls;
  try {
    urls = await waitForListening(entry, 30_000);
  } catch (error) {
    await stopChild(entry);
    throw error;
  }
  return { entry, urls, env, bin, dataDir, stop: () => stopChild(entry, 10_000) };
}

/**
 * `bin/gateway serve` (spawnGateway), bootstrapped (`admin bootstrap --org bench`) and with a
 * gateway key made through the console API.
 */
export async function startGatewayProcess(ctx, options = {}) {
  const { entry, urls, env, bin, dataDir, stop } = await spawnGateway(ctx, options);
  try {
    const boot = await execFileAsync(process.execPath, [bin, 'admin', 'bootstrap', '--org', 'bench'], {
      cwd: ctx.repoRoot,
      env,
      timeout: 30_000,
    });
    const org = JSON.parse(boot.stdout.trim().split('\n').pop());
    const created = await fetchText(`${urls.console}/v1/organizations/${org.organization_id}/api_keys`, {
      method: 'POST',
      headers: { authorization: `Bearer ${org.console_token}` },
      body: JSON.stringify({ name: 'bench' }),
    });
    if (created.status !== 201 && created.status !== 200)
      throw new Error(`creating the gateway key: HTTP ${created.status}: ${created.text.slice(0, 300)}`);
    const { key } = JSON.parse(created.text);
    if (!key) throw new Error(`creating the gateway key: no "key" in ${created.text.slice(0, 300)}`);
    return {
      url: `${urls.gateway}/v1/chat/completions`,
      headers: { authorization: `Bearer ${key}` },
      body: (mode) => requestBody('openai/gpt-4o-mini', mode),
      pid: entry.pid,
      note: `SQLite store in a temp dir, LOG_LEVEL ${env.LOG_LEVEL ?? 'unset (info)'}`,
      logs: () => tail(entry.errFile, 800),
      stop,
      urls,
      key,
      org,
      dataDir,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

function gateway(ctx) {
  return {
    id: 'gateway',
    label: 'this gateway, HTTPS',
    protocol: 'https',
    start: () => startGatewayProcess(ctx),
  };
}

/**
 * A second tree to compare with: `git archive <ref>` of this repository in `dir`, sharing this
 * tree's node_modules (a symlink: the dependencies must not have changed in between), built with
 * its own build (buildGateway). Returns the commit the ref names.
 */
export async function prepareBaseline(repoRoot, ref, dir) {
  const { stdout } = await execFileAsync('git', ['-C', repoRoot, 'rev-parse', '--verify', `${ref}^{commit}`]);
  const commit = stdout.trim();
  mkdirSync(dir, { recursive: true });
  await execFileAsync('sh', ['-c', `git -C "$0" archive "$1" | tar -x -C "$2"`, repoRoot, commit, dir], {
    maxBuffer: 16 << 20,
  });
  symlinkSync(join(repoRoot, 'node_modules'), join(dir, 'node_modules'), 'dir');
  await buildGateway(dir);
  return commit;
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
