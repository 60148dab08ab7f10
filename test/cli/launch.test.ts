import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generate } from 'selfsigned';
import { runCli, spawnCli } from './cli-process.js';
import { startServedGateway, type ServedGateway } from '../support/served-gateway.js';
import { startMockAgentUpstream, type MockUpstream } from '../support/mock-upstreams/index.js';
import { UPSTREAM_KEY, agentGatewayConfig } from '../support/agents/agent-gateway.js';
import { AGENT_RELEASES, PROMPT, makeProject } from '../support/agents/agent-clis.js';
import { FINAL_PREFIX, PROBE_CONTENT, toolRoundTrip } from '../support/agents/tool-round-trip.js';
import { openStore } from '../../src/store/database.js';
import { assertLaunchInConsole } from './launch-console.js';

/**
 * `gateway launch <agent> [args…]` as users run it: the built bin/gateway, a served gateway
 * whose providers are the mock agent upstream, and the agent as launch's child — the pinned
 * Claude Code for the tool round trip, a fake agent (test/support/agents/fake-agent.mjs) that
 * reports its arguments and variables for what launch hands each agent.
 */
const FAKE_AGENT = join(dirname(fileURLToPath(import.meta.url)), '..', 'support', 'agents', 'fake-agent.mjs');
const CLAUDE = pinnedBinary('claude-code', 'claude.exe');
/** The pinned binary of the first release of a CLI. */
function pinnedBinary(cli: 'claude-code' | 'codex' | 'opencode', file: string): string {
  const release = AGENT_RELEASES.find((candidate) => candidate.cli === cli)!;
  return join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'node_modules', release.install, 'bin', file);
}
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/;

/**
 * opencode's default model, at prices and limits of the operator's config file (no public price
 * list has them): what opencode's cost readout shows must come from the gateway's catalogue.
 */
const SONNET_AT_OPERATOR_PRICES = {
  id: 'anthropic/claude-sonnet-4-6',
  providers: [{ provider: 'anthropic', model: 'claude-sonnet-4-6' }],
  pricing: { input_per_mtok: 7, output_per_mtok: 11, cached_input_per_mtok: 0.7, cache_write_per_mtok: 8.75 },
  context_window: 150_000,
  max_output_tokens: 32_000,
};

/** Each step opencode reports (`run --format json`) costs its tokens at SONNET_AT_OPERATOR_PRICES. */
function assertCostAtCataloguePrices(stdout: string): void {
  const steps = stdout
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line))
    .filter((event) => event.type === 'step_finish');
  assert.ok(steps.length >= 2, stdout.slice(0, 2000));
  for (const { part } of steps) {
    const { input, output, cache } = part.tokens;
    const expected = (input * 7 + output * 11 + cache.read * 0.7 + cache.write * 8.75) / 1e6;
    assert.ok(
      part.cost > 0 && Math.abs(part.cost - expected) < 1e-9,
      `cost ${part.cost}, at catalogue prices ${expected}`,
    );
  }
}

interface AgentReport {
  argv: string[];
  env: Record<string, string | undefined>;
}

describe('gateway launch', () => {
  const project = makeProject();
  const reportFile = join(project.home, 'fake-agent.jsonl');
  let mock: MockUpstream;
  let served: ServedGateway;
  let env: Record<string, string>;

  before(async () => {
    mock = await startMockAgentUpstream({ apiKey: UPSTREAM_KEY });
    mock.setScenario(toolRoundTrip(project.dir));
    served = await startServedGateway({
      config: { ...agentGatewayConfig(mock.baseUrl), models: [SONNET_AT_OPERATOR_PRICES] },
      env: { AGENT_MOCK_KEY: UPSTREAM_KEY },
    });
    env = {
      ...served.env,
      HOME: project.home,
      FAKE_AGENT_REPORT: reportFile,
      GATEWAY_CODEX_BIN: FAKE_AGENT,
      GATEWAY_OPENCODE_BIN: FAKE_AGENT,
      // The agent's own calls to its vendor (telemetry, flags): none offline.
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    };
  });
  after(async () => {
    await served?.stop();
    await mock?.close();
    project.cleanup();
  });

  /** Runs launch against the served gateway; returns its result and what the fake agent reported. */
  async function launch(args: string[], extraEnv: Record<string, string> = {}) {
    writeFileSync(reportFile, '');
    const result = await runCli(
      'bin',
      ['launch', '--url', served.serve.urls.gateway, ...args],
      { ...env, ...extraEnv },
      90_000,
      project.dir,
    );
    const reports = readFileSync(reportFile, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as AgentReport);
    const announced = /^gateway launch: .* \(key ([0-9a-f-]+)(, new)?; session (\S+)\)$/m.exec(result.stderr);
    return {
      result,
      report: reports[0],
      keyId: announced?.[1],
      newKey: announced?.[2] !== undefined,
      session: announced?.[3],
    };
  }

  it('launch claude -p completes a tool round trip; the session, tagged, appears in the console with its member and agent', async () => {
    const before = mock.requests.length;
    // The organization has no members yet: the project's git address becomes its first owner.
    spawnSync('git', ['config', 'user.email', 'dev@example.org'], { cwd: project.dir });
    const run = await launch(['--org', 'served', 'claude', '-p', PROMPT], { GATEWAY_CLAUDE_BIN: CLAUDE });
    assert.equal(run.result.status, 0, run.result.stderr);
    assert.match(run.result.stdout, new RegExp(`${FINAL_PREFIX} ${PROBE_CONTENT}`));
    assert.doesNotMatch(run.result.stderr, /warning/, 'the served gateway uses this data dir and knows the key');
    assert.match(run.session ?? '', UUID);
    assert.ok(mock.requests.length >= before + 2, 'the tool call and the answer carrying its result');

    const store = await openStore({ dataDir: served.dataDir, databaseUrl: undefined, schema: undefined });
    try {
      const rows = await store.db
        .selectFrom('usage_records')
        .selectAll()
        .where('api_key_id', '=', run.keyId!)
        .execute();
      assert.ok(rows.length >= 2, `usage rows of the launch key: ${rows.length}`);
      for (const row of rows) assert.deepEqual(JSON.parse(row.tags), [`session:${run.session}`]);
      assert.ok(rows.every((row) => row.status_code === 200));
      const key = await store.db
        .selectFrom('api_keys')
        .selectAll()
        .where('id', '=', run.keyId!)
        .executeTakeFirstOrThrow();
      assert.equal(key.coding_assistant, 'claude_code');
      // The session header names the conversation compression keeps state for.
      const states = await store.db
        .selectFrom('compression_conversations')
        .select('conversation_id')
        .where('api_key_id', '=', run.keyId!)
        .execute();
      assert.ok(states.length >= 1, 'compression kept the session conversation');
    } finally {
      await store.close();
    }

    // The console shows the session with its agent, and the key (so the session) with its member.
    assert.match(run.result.stderr, /for member dev@example\.org/);
    await assertLaunchInConsole(served, run, 'claude-cli', 'dev@example.org');
  });

  for (const [cli, binary, variable, args] of [
    ['codex', pinnedBinary('codex', 'codex.js'), 'GATEWAY_CODEX_BIN', ['exec', PROMPT]],
    ['opencode', pinnedBinary('opencode', 'opencode.exe'), 'GATEWAY_OPENCODE_BIN', ['run', '--format', 'json', PROMPT]],
  ] as const) {
    it(`launch ${cli} ${args[0]} "…" runs the pinned ${cli} through a tool round trip`, async () => {
      const run = await launch([cli, ...args], {
        [variable]: binary,
        // What keeps them off the internet offline (client-profiles.ts quietEnv), as a user may set it.
        OPENCODE_DISABLE_MODELS_FETCH: '1',
        OPENCODE_DISABLE_AUTOUPDATE: '1',
      });
      assert.equal(run.result.status, 0, run.result.stderr.slice(-2000));
      assert.match(run.result.stdout, new RegExp(`${FINAL_PREFIX} ${PROBE_CONTENT}`), run.result.stderr.slice(-2000));
      if (cli === 'opencode') assertCostAtCataloguePrices(run.result.stdout);
      const store = await openStore({ dataDir: served.dataDir, databaseUrl: undefined, schema: undefined });
      try {
        const rows = await store.db
          .selectFrom('usage_records')
          .select('tags')
          .where('api_key_id', '=', run.keyId!)
          .execute();
        assert.ok(rows.length >= 2, `usage rows of the launch key: ${rows.length}`);
        for (const row of rows) assert.ok(JSON.parse(row.tags).includes(`session:${run.session}`), row.tags);
      } finally {
        await store.close();
      }
    });
  }

  it('a second launch reuses the key with a new session; a deleted key is replaced', async () => {
    const first = await launch(['--org', 'served', 'claude', 'one'], { GATEWAY_CLAUDE_BIN: FAKE_AGENT });
    const second = await launch(['--org', 'served', 'claude', 'two'], { GATEWAY_CLAUDE_BIN: FAKE_AGENT });
    assert.equal(second.result.status, 0, second.result.stderr);
    assert.equal(second.keyId, first.keyId);
    assert.equal(second.newKey, false);
    assert.equal(second.report!.env.ANTHROPIC_AUTH_TOKEN, first.report!.env.ANTHROPIC_AUTH_TOKEN);
    assert.notEqual(second.session, first.session);
    const record = readFileSync(join(served.dataDir, 'launch-keys.json'), 'utf8');
    assert.ok(
      record.includes(first.keyId!) && !record.includes(first.report!.env.ANTHROPIC_AUTH_TOKEN!),
      'ids only, never the secret',
    );

    const deleted = await served.client.call(
      `${served.serve.urls.console}/v1/organizations/${served.organizationId}/api_keys/${first.keyId}`,
      'DELETE',
      { token: served.consoleToken },
    );
    assert.ok(deleted.status < 300, deleted.text);
    const third = await launch(['--org', 'served', 'claude', 'three'], { GATEWAY_CLAUDE_BIN: FAKE_AGENT });
    assert.notEqual(third.keyId, first.keyId);
    assert.equal(third.newKey, true);
  });

  it('passes every argument and the exit code; Claude Code gets its variables and the session headers', async () => {
    const args = ['-p', 'a "quoted" word', '--help', '--', '$HOME', ''];
    const userCa = join(project.home, 'company-ca.pem');
    const companyCa = await generate([{ name: 'commonName', value: 'company-proxy.test' }], {
      keyType: 'ec',
      curve: 'P-256',
      algorithm: 'sha256',
    });
    writeFileSync(userCa, companyCa.cert);
    const run = await launch(['claude', ...args], {
      GATEWAY_CLAUDE_BIN: FAKE_AGENT,
      FAKE_AGENT_EXIT: '7',
      ANTHROPIC_API_KEY: 'sk-user-own',
      // The user's own extra CA (a company proxy's, say): kept beside the gateway's.
      NODE_EXTRA_CA_CERTS: userCa,
    });
    assert.equal(run.result.status, 7);
    assert.deepEqual(run.report!.argv, args, '--help after the agent is the agent’s');
    const seen = run.report!.env;
    assert.equal(seen.ANTHROPIC_BASE_URL, served.serve.urls.gateway);
    assert.equal(seen.ANTHROPIC_API_KEY, undefined, 'a key of the user’s own would be sent beside the gateway’s');
    const extraCa = readFileSync(seen.NODE_EXTRA_CA_CERTS!, 'utf8');
    assert.ok(extraCa.includes(readFileSync(join(served.dataDir, 'tls', 'ca.pem'), 'utf8').trim()));
    assert.ok(extraCa.includes(readFileSync(userCa, 'utf8').trim()));
    assert.equal(
      seen.ANTHROPIC_CUSTOM_HEADERS,
      `X-Gateway-Compression-Model: claude\nX-Gateway-Session-Id: ${run.session}\nX-Gateway-Tags: session:${run.session}`,
    );
  });

  it('codex gets its provider as -c flags before the user’s arguments, and the CA', async () => {
    const run = await launch(['--no-compression', 'codex', 'exec', 'do it'], { FAKE_AGENT_EXIT: '0' });
    const ownCa = await launch(['codex'], { CODEX_CA_CERTIFICATE: join(served.dataDir, 'tls', 'cert.pem') });
    assert.equal(
      readFileSync(ownCa.report!.env.CODEX_CA_CERTIFICATE!, 'utf8'),
      `${readFileSync(join(served.dataDir, 'tls', 'ca.pem'), 'utf8').trimEnd()}\n${readFileSync(join(served.dataDir, 'tls', 'cert.pem'), 'utf8').trimEnd()}\n`,
      'the user’s own CA file kept beside the gateway’s',
    );
    assert.equal(run.result.status, 0, run.result.stderr);
    const { argv, env: seen } = run.report!;
    assert.deepEqual(argv.slice(-2), ['exec', 'do it']);
    const flags = argv.slice(0, -2);
    assert.ok(flags.every((flag, i) => (i % 2 === 0 ? flag === '-c' : flag.includes('='))));
    const values = flags.filter((_, i) => i % 2 === 1);
    assert.ok(values.includes('model_provider="gateway"'));
    assert.ok(values.includes(`model_providers.gateway.base_url="${served.serve.urls.gateway}/v1"`));
    assert.ok(values.includes('model_providers.gateway.env_key="GATEWAY_API_KEY"'));
    assert.ok(
      values.includes(
        `model_providers.gateway.http_headers={ "X-Gateway-Session-Id" = "${run.session}", "X-Gateway-Tags" = "session:${run.session}" }`,
      ),
      values.join('\n'),
    );
    assert.match(seen.GATEWAY_API_KEY ?? '', /^gw-/);
    assert.equal(seen.CODEX_CA_CERTIFICATE, join(served.dataDir, 'tls', 'ca.pem'));
  });

  it('opencode gets a provider whose models carry the catalogue’s context windows and prices', async () => {
    const run = await launch(['opencode', 'run', 'hi']);
    assert.equal(run.result.status, 0, run.result.stderr);
    assert.deepEqual(run.report!.argv, ['run', 'hi']);
    const config = JSON.parse(run.report!.env.OPENCODE_CONFIG_CONTENT!);
    const anthropic = config.provider.anthropic;
    assert.equal(anthropic.options.baseURL, `${served.serve.urls.gateway}/v1`);
    assert.equal(anthropic.options.apiKey, '{env:GATEWAY_API_KEY}');
    assert.equal(anthropic.options.headers['X-Gateway-Session-Id'], run.session);
    // src/catalogue/default-catalogue.ts: claude-opus-5-5 at $4 / $20, cache read $0.20, write $5; Anthropic's 200k window.
    assert.deepEqual(anthropic.models['claude-opus-5-5'], {
      name: 'claude-opus-5-5',
      limit: { context: 200_000, output: 128_000 },
      cost: { input: 4, output: 20, cache_read: 0.2, cache_write: 5 },
    });
    assert.equal(anthropic.models['claude-opus-4-1'], undefined, 'an inactive model is not offered');
    assert.deepEqual(
      anthropic.models['claude-sonnet-4-6'].limit,
      { context: 150_000, output: 32_000 },
      'the config file’s',
    );
  });

  for (const sent of ['SIGTERM', 'SIGINT'] as const)
    it(`forwards ${sent} to the agent (no terminal) and ends by the same signal`, async () => {
      writeFileSync(reportFile, '');
      const child = spawnCli(
        'bin',
        ['launch', '--url', served.serve.urls.gateway, 'codex'],
        { ...env, FAKE_AGENT_WAIT: '1' },
        project.dir,
      );
      let stderr = '';
      child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
      const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
      // The agent reports once it runs (its signal handlers set).
      for (let i = 0; i < 300 && !readFileSync(reportFile, 'utf8'); i++) await new Promise((r) => setTimeout(r, 100));
      child.kill(sent);
      const [code, signal] = await exited;
      assert.equal(signal, sent, `exit code ${code}; ${stderr}`);
      assert.match(readFileSync(reportFile, 'utf8'), new RegExp(`"signal":"${sent}"`));
    });

  it('warns when the gateway clients reach is not the one using this data dir', async () => {
    const other = mkdtempSync(join(tmpdir(), 'gateway-launch-other-'));
    try {
      const otherEnv = { GATEWAY_DATA_DIR: other, GATEWAY_CLAUDE_BIN: FAKE_AGENT };
      const stranger = await launch(['claude'], otherEnv);
      assert.equal(stranger.result.status, 0, 'the agent still runs');
      assert.match(
        stranger.result.stderr,
        /warning: the gateway at \S+ presents a certificate not signed by the CA of/,
      );

      // The same CA but another store: the key made there is unknown to the served gateway.
      rmSync(other, { recursive: true, force: true });
      cpSync(join(served.dataDir, 'tls'), join(other, 'tls'), { recursive: true });
      const otherStore = await runCli('bin', ['connect', 'claude-code', '--url', served.serve.urls.gateway, '--json'], {
        ...served.env,
        GATEWAY_DATA_DIR: other,
      });
      assert.equal(otherStore.status, 0, otherStore.stderr);
      assert.match(otherStore.stderr, /warning: the gateway at \S+ refuses this key \(401\): it uses another store/);

      const nobody = await runCli('bin', ['connect', 'codex', '--url', 'https://127.0.0.1:9'], served.env);
      assert.match(nobody.stderr, /warning: no gateway answers at https:\/\/127\.0\.0\.1:9 \(ECONNREFUSED\)/);

      const served_ = await runCli('bin', ['connect', 'codex', '--url', served.serve.urls.gateway], served.env);
      assert.doesNotMatch(served_.stderr, /warning/);
    } finally {
      rmSync(other, { recursive: true, force: true });
    }
  });

  it('every command’s --help prints that command’s usage', async () => {
    for (const command of [
      ['serve'],
      ['admin', 'bootstrap'],
      ['admin', 'backup'],
      ['trust'],
      ['connect'],
      ['launch'],
    ]) {
      const help = await runCli('bin', [...command, '--help'], env);
      assert.equal(help.status, 0, help.stderr);
      const entries = help.stdout.split('\n').filter((line) => line.startsWith('  gateway '));
      assert.equal(entries.length, 1, help.stdout);
      assert.ok(entries[0]!.startsWith(`  gateway ${command.join(' ')}`), help.stdout);
    }
  });

  it('--help before the agent is launch’s usage; an unknown agent is refused', async () => {
    const help = await runCli('bin', ['launch', '--help'], env);
    assert.equal(help.status, 0);
    assert.match(help.stdout, /^ {2}gateway launch \[--org <slug>\]/m);
    assert.doesNotMatch(help.stdout, /gateway connect/);
    const unknown = await runCli('bin', ['launch', 'emacs'], env);
    assert.equal(unknown.status, 1);
    assert.match(unknown.stderr, /unknown agent "emacs"; one of: claude, codex, opencode/);
    const missing = await runCli('bin', ['launch', '--bin', join(project.home, 'no-such-agent'), 'claude'], {
      ...served.env,
    });
    assert.equal(missing.status, 1);
    assert.match(
      missing.stderr,
      /cannot run "\S+no-such-agent": not found; install it, or name its binary with --bin or GATEWAY_CLAUDE_BIN/,
    );
  });
});
