import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildDist, httpsClient, runCli, startServe, type CliMode, type ServeProcess } from '../cli/cli-process.js';

/**
 * `gateway serve` as its own process (the built bundle by default, as users run it) with a
 * config file, bootstrapped, and a gateway key made through the console API: for what only a
 * separate process can show (its memory, that it survives). SQLite in a temp dir.
 */
export interface ServedGateway {
  serve: ServeProcess;
  pid: number;
  key: string;
  /** The data dir and environment it serves with, for running other commands on the same store. */
  dataDir: string;
  env: Record<string, string>;
  /** The bootstrapped organization and its full-rights console token. */
  organizationId: string;
  consoleToken: string;
  client: ReturnType<typeof httpsClient>;
  /** The process's resident memory now and at its peak (VmRSS, VmHWM of /proc/<pid>/status), bytes; Linux only. */
  memory(): { rss: number; peak: number } | undefined;
  /** Whether the process is still running. */
  alive(): boolean;
  stop(): Promise<void>;
}

export async function startServedGateway(options: {
  config: unknown;
  env?: Record<string, string>;
  mode?: CliMode;
}): Promise<ServedGateway> {
  const mode = options.mode ?? 'bin';
  const dataDir = mkdtempSync(join(tmpdir(), 'gateway-served-'));
  const configFile = join(dataDir, 'config.json');
  writeFileSync(configFile, JSON.stringify(options.config));
  const env = {
    GATEWAY_DATA_DIR: dataDir,
    GATEWAY_CONFIG: configFile,
    GATEWAY_PORT: '0',
    CONSOLE_PORT: '0',
    COLLECTOR_PORT: '0',
    LOG_LEVEL: 'warn',
    ...options.env,
  };
  if (mode === 'bin') buildDist();
  const serve = await startServe(mode, env);
  const client = httpsClient(readFileSync(join(dataDir, 'tls', 'cert.pem'), 'utf8'));
  const stop = async () => {
    await serve.stop();
    await client.close();
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    const boot = await runCli(mode, ['admin', 'bootstrap', '--org', 'served'], env);
    assert.equal(boot.status, 0, boot.stderr);
    const org = JSON.parse(boot.stdout.trim()) as { organization_id: string; console_token: string };
    const created = await client.call(
      `${serve.urls.console}/v1/organizations/${org.organization_id}/api_keys`,
      'POST',
      {
        token: org.console_token,
        body: { name: 'served' },
      },
    );
    assert.equal(created.status, 201, created.text);
    const pid = serve.child.pid!;
    return {
      serve,
      pid,
      key: created.json.key as string,
      dataDir,
      env,
      organizationId: org.organization_id,
      consoleToken: org.console_token,
      client,
      memory: () => memoryOf(pid),
      alive: () => serve.child.exitCode === null && serve.child.signalCode === null,
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

function memoryOf(pid: number): { rss: number; peak: number } | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kib = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN) * 1024;
    return { rss: kib('VmRSS'), peak: kib('VmHWM') };
  } catch {
    return undefined;
  }
}
