import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { buildDist, httpsClient, runCli, startServe, type ServeProcess } from '../cli/cli-process.js';
import { countRequestTokens } from '../../src/tokenize/index.js';

/**
 * Issue 16's acceptance, on the first call after a start: 10 MB of one repeated character
 * through count_tokens answered in under 2 s, a concurrent GET /v1/models within 100 ms. Warm,
 * it held (tokenizer-dos.test.ts); the first call after a start paid for the pool thread's start
 * and the merge ranks' load on top (~0.45 s of CPU). Here against a freshly started
 * `bin/gateway serve` (the built bundle), whose pool has never run.
 *
 * The latency bounds are about the gateway, not about other programs on the machine: they are
 * asserted when the machine had a core to spare during the call (other processes used at most
 * half a core, from /proc/stat). The gateway's own CPU time for the call (< 2 s, all threads) and
 * its main thread's (< 0.6 s: the counting ran elsewhere) are asserted always (Linux).
 */
const TEN_MB = 10 * 1000 * 1000;

/** Clock ticks (10 ms) of CPU: a process's threads, or one thread of it. */
function cpuTicks(pid: number, thread?: number): number | undefined {
  try {
    const stat = readFileSync(thread ? `/proc/${pid}/task/${thread}/stat` : `/proc/${pid}/stat`, 'utf8');
    const fields = stat.split(') ')[1]!.split(' ');
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return undefined;
  }
}

/** Busy and total clock ticks of the whole machine (first line of /proc/stat). */
function machineTicks(): { busy: number; total: number } | undefined {
  try {
    const values = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
    const total = values.reduce((a, b) => a + b, 0);
    return { busy: total - values[3]! - (values[4] ?? 0), total };
  } catch {
    return undefined;
  }
}

describe('the first 10 MB count_tokens after a start (issue 16 acceptance)', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'gateway-dos-fresh-'));
  const env = {
    GATEWAY_DATA_DIR: dataDir,
    GATEWAY_PORT: '0',
    CONSOLE_PORT: '0',
    COLLECTOR_PORT: '0',
    LOG_LEVEL: 'warn',
  };
  let serve: ServeProcess | undefined;
  let client: ReturnType<typeof httpsClient>;
  let key = '';

  before(
    async () => {
      buildDist();
      serve = await startServe('bin', env);
      client = httpsClient(readFileSync(join(dataDir, 'tls', 'cert.pem'), 'utf8'));
      const boot = await runCli('bin', ['admin', 'bootstrap', '--org', 'dos'], env);
      assert.equal(boot.status, 0, boot.stderr);
      const org = JSON.parse(boot.stdout.trim()) as { organization_id: string; console_token: string };
      const created = await client.call(
        `${serve.urls.console}/v1/organizations/${org.organization_id}/api_keys`,
        'POST',
        {
          token: org.console_token,
          body: { name: 'dos' },
        },
      );
      assert.equal(created.status, 201, created.text);
      key = created.json.key as string;
    },
    { timeout: 240_000 },
  );
  after(async () => {
    await serve?.stop();
    await client?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('answers the exact count in under 2 s, GET /v1/models within 100 ms meanwhile', { timeout: 120_000 }, async () => {
    const body = { model: 'openai/gpt-4o', messages: [{ role: 'user', content: 'a'.repeat(TEN_MB) }] };
    const expected = countRequestTokens(body, 'o200k_base');
    const rawBody = JSON.stringify(body);
    const pid = serve!.child.pid!;
    const gateway = serve!.urls.gateway;

    const latencies: number[] = [];
    let polling = true;
    const poll = (async () => {
      while (polling) {
        const started = performance.now();
        const res = await client.call(`${gateway}/v1/models`, 'GET', { token: key });
        assert.equal(res.status, 200);
        latencies.push(performance.now() - started);
        await delay(10);
      }
    })();
    await delay(100);
    const before = { cpu: cpuTicks(pid), main: cpuTicks(pid, pid), machine: machineTicks() };
    const started = performance.now();
    const res = await client.call(`${gateway}/v1/count_tokens`, 'POST', {
      token: key,
      rawBody,
      headers: { 'content-type': 'application/json' },
    });
    const elapsedMs = performance.now() - started;
    const after = { cpu: cpuTicks(pid), main: cpuTicks(pid, pid), machine: machineTicks() };
    polling = false;
    await poll;

    assert.equal(res.status, 200, res.text.slice(0, 300));
    assert.equal(res.json.input_tokens, expected);
    const cpuMs = before.cpu === undefined || after.cpu === undefined ? undefined : (after.cpu - before.cpu) * 10;
    const mainMs = before.main === undefined || after.main === undefined ? undefined : (after.main - before.main) * 10;
    // Other processes' CPU during the call, in cores: the machine's busy time minus the gateway's.
    const otherCores =
      before.machine && after.machine && cpuMs !== undefined
        ? (((after.machine.busy - before.machine.busy) / (after.machine.total - before.machine.total)) *
            availableParallelism() *
            elapsedMs -
            cpuMs) /
          elapsedMs
        : undefined;
    const worstModels = Math.max(...latencies);
    console.log(
      `first count_tokens after start, 10 MB of "a": ${elapsedMs.toFixed(0)} ms; gateway CPU ${cpuMs ?? '?'} ms ` +
        `(main thread ${mainMs ?? '?'} ms); GET /v1/models meanwhile: n=${latencies.length}, max ${worstModels.toFixed(0)} ms; ` +
        `other processes: ${otherCores?.toFixed(2) ?? '?'} cores of ${availableParallelism()}`,
    );
    assert.ok(latencies.length >= 3, `only ${latencies.length} /v1/models answers during the call`);
    if (cpuMs !== undefined) assert.ok(cpuMs < 2_000, `the gateway spent ${cpuMs} ms of CPU on the call`);
    if (mainMs !== undefined) assert.ok(mainMs < 600, `the gateway's main thread spent ${mainMs} ms of CPU`);
    if (otherCores !== undefined && otherCores <= 0.5) {
      assert.ok(elapsedMs < 2_000, `count_tokens took ${elapsedMs.toFixed(0)} ms`);
      assert.ok(worstModels < 100, `GET /v1/models took ${worstModels.toFixed(0)} ms`);
    }
  });
});
