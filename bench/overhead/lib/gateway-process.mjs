// The gateway as a target: built, spawned as `bin/gateway serve` with its own data dir and config,
// bootstrapped with a key; and a second tree built from a git ref to compare with (cpu.mjs --baseline).
import { execFile } from 'node:child_process';
import { mkdirSync, writeFileSync, existsSync, readFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { spawnNode, waitForListening, stopChild, tail } from './processes.mjs';
import { fetchText, requestBody } from './requests.mjs';

const execFileAsync = promisify(execFile);

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
      launcher: ctx.gatewayLauncher ?? [],
    },
  );
  let urls;
  try {
    urls = await waitForListening(entry, ctx.listenTimeoutMs ?? 30_000);
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
      // Under valgrind (instructions.mjs) the console's first request compiles everything ~10× slower.
      timeoutMs: ctx.requestTimeoutMs ?? 10_000,
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
