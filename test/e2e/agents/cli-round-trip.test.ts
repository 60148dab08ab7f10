import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Harness } from '../../support/gateway-harness.js';
import type { MockUpstream, RecordedRequest } from '../../support/mock-upstreams/index.js';
import { UPSTREAM_KEY, startAgentGateway } from '../../support/agents/agent-gateway.js';
import { AGENT_RELEASES, makeProject, releaseName, runAgent, type AgentRun } from '../../support/agents/agent-clis.js';
import {
  startRecordingProxy,
  type ProxiedExchange,
  type RecordingProxy,
} from '../../support/agents/recording-proxy.js';
import { FINAL_PREFIX, PROBE_CONTENT } from '../../support/agents/tool-round-trip.js';
import { ASSISTANT_OF, BUNDLE_OF, COMPRESSION_HEADER } from '../../../src/cli/client-profiles.js';
import { countBodyTokens } from '../../../src/compress/token-count.js';
import { tokenizerForModel } from '../../../src/tokenize/index.js';
import type { RequestFormat } from '../../../src/compress/types.js';
import { GATEWAY_ONLY_FIELDS } from '../../../src/providers/shared/gateway-fields.js';

/**
 * Issue 18's acceptance, with the real CLIs: each pinned release (the versions pinned first and
 * the newest published, issue 27), given only what `gateway connect`
 * prints (base URL, key, CA, compression header) and its default model and flags, runs a
 * streamed tool-use round trip through the gateway to a mock provider. A recording proxy
 * between CLI and gateway keeps what the client sent and what the gateway answered, so the
 * savings the gateway reports are checked against a re-count of both bodies.
 *
 * Assertions the current gateway fails are marked `todo` with the reason (docs/agents.md,
 * "Known failures"): they run and report, and turn green when the gateway is fixed.
 */
const RUN_TIMEOUT_MS = 150_000; // opencode needs ~10 s of CPU; a loaded 2-core machine stretches that

/** Why a release's round trip fails on today's gateway (by `releaseName`), first failure first. */
const PENDING: Partial<Record<string, string>> = {};
/** The gateway's members and those Edgee's SDKs send: none may reach a provider. */
const GATEWAY_FIELDS: readonly string[] = GATEWAY_ONLY_FIELDS;

const modelCalls = (exchanges: ProxiedExchange[]) =>
  exchanges.filter((e) => e.method === 'POST' && /\/v1\/(messages|responses|chat\/completions)(\?|$)/.test(e.path));
const upstreamCalls = (requests: RecordedRequest[]) => requests.filter((r) => r.method === 'POST');

function formatOf(path: string): RequestFormat {
  if (path.startsWith('/v1/messages')) return 'messages';
  if (path.startsWith('/v1/responses')) return 'responses';
  return 'chat';
}

/** `saved_tokens` the gateway reported in a response (JSON or SSE); 0 when it reported none. */
function reportedSavings(text: string): number {
  let saved = 0;
  for (const match of text.matchAll(/"compression":\{[^}]*"saved_tokens":(\d+)/g)) saved = Number(match[1]);
  return saved;
}

for (const release of AGENT_RELEASES) {
  const { cli } = release;
  const name = releaseName(release);
  describe(`${name} through the gateway, default model and flags`, { timeout: RUN_TIMEOUT_MS + 60_000 }, () => {
    let mock: MockUpstream;
    let harness: Harness;
    let proxy: RecordingProxy;
    let project: ReturnType<typeof makeProject>;
    let run: AgentRun;

    before(async () => {
      project = makeProject();
      ({ mock, harness } = await startAgentGateway(project.dir));
      const org = await harness.organization();
      const key = await harness.createKey(org, {
        name: cli,
        type: 'coding_agent',
        coding_assistant: ASSISTANT_OF[cli],
        compression: true,
      });
      const tls = join(harness.dataDir, 'tls');
      proxy = await startRecordingProxy({
        target: harness.running.urls.gateway,
        cert: readFileSync(join(tls, 'cert.pem'), 'utf8'),
        key: readFileSync(join(tls, 'key.pem'), 'utf8'),
        ca: readFileSync(join(tls, 'ca.pem'), 'utf8'),
      });
      run = await runAgent(
        release,
        {
          origin: proxy.origin,
          apiKey: key.key,
          caFile: join(tls, 'ca.pem'),
          caBundleFile: join(tls, 'ca-bundle.pem'),
          bundle: BUNDLE_OF[cli],
        },
        project,
        { timeoutMs: RUN_TIMEOUT_MS },
      );
    });

    after(async () => {
      await proxy?.close();
      await harness?.stop();
      await mock?.close();
      project?.cleanup();
    });

    it('trusts the local CA and authenticates with the key it was given', () => {
      const calls = modelCalls(proxy.exchanges);
      assert.ok(calls.length > 0, `no model call reached the gateway:\n${run.stderr.slice(-2000)}`);
      for (const call of calls) assert.ok(![401, 403].includes(call.status), `${call.path}: ${call.status}`);
    });

    it('sends the compression bundle header its configuration names', () => {
      for (const call of modelCalls(proxy.exchanges))
        assert.equal(call.headers[COMPRESSION_HEADER.toLowerCase()], BUNDLE_OF[cli]);
    });

    it('finishes the run well inside the CI budget', () => {
      assert.equal(run.timedOut, false, `killed after ${RUN_TIMEOUT_MS} ms`);
    });

    it('completes the tool-use round trip', { todo: PENDING[name] }, () => {
      assert.equal(run.status, 0, `exit ${run.status}\n${run.stdout.slice(-1500)}\n${run.stderr.slice(-1500)}`);
      assert.ok(run.stdout.includes(`${FINAL_PREFIX} ${PROBE_CONTENT}`), run.stdout.slice(-1500));
    });

    it('has every model call admitted and answered as a stream', { todo: PENDING[name] }, () => {
      for (const call of modelCalls(proxy.exchanges)) {
        assert.equal(call.status, 200, `${call.path} → ${call.status} ${call.responseText.slice(0, 600)}`);
        assert.equal(call.body?.stream, true, `${call.path} was not a streaming request`);
        assert.match(String(call.responseHeaders['content-type']), /^text\/event-stream/);
      }
    });

    it('never lets the gateway key or a gateway field reach the provider', { todo: PENDING[name] }, () => {
      const upstream = upstreamCalls(mock.requests);
      assert.ok(upstream.length > 0, 'nothing reached the provider');
      for (const request of upstream) {
        const auth = String(request.headers['x-api-key'] ?? request.headers.authorization ?? '');
        assert.ok(auth.endsWith(UPSTREAM_KEY), `provider got credentials "${auth.slice(0, 12)}…"`);
        for (const name of Object.keys(request.headers)) assert.ok(!name.startsWith('x-gateway-'), name);
        for (const field of GATEWAY_FIELDS) assert.ok(!(field in (request.body ?? {})), field);
      }
    });

    // Same-format savings: each body passes through natively (Codex's Responses bodies to the
    // OpenAI mock too), compressed in its own shape; Codex's tool outputs are
    // `custom_tool_call_output` items and its tools an `additional_tools` input item.
    it('reports compression savings equal to a re-count of client and provider bodies', { todo: PENDING[name] }, () => {
      const calls = modelCalls(proxy.exchanges).filter((call) => call.status === 200);
      const upstream = upstreamCalls(mock.requests);
      assert.ok(calls.length > 0, 'no model call was answered');
      assert.equal(upstream.length, calls.length, 'one provider call per client call');
      let savedSomewhere = false;
      let removedBytes = 0;
      let savedTokens = 0;
      for (const [i, call] of calls.entries()) {
        const sent = upstream[i]!;
        const format = formatOf(call.path);
        assert.equal(formatOf(sent.path), format, `${call.path} went upstream as ${sent.path}`);
        const tokenizer = tokenizerForModel(String(call.body.model));
        const recount = countBodyTokens(call.body, format, tokenizer) - countBodyTokens(sent.body, format, tokenizer);
        const reported = reportedSavings(call.responseText);
        assert.equal(reported, recount, `call ${i + 1} (${call.path}): reported ${reported}, re-count ${recount}`);
        savedSomewhere ||= recount > 0;
        removedBytes += JSON.stringify(call.body).length - JSON.stringify(sent.body).length;
        savedTokens += recount;
      }
      assert.ok(savedSomewhere, 'compression removed nothing from any call');
      // What was removed shows as tokens (about four bytes a token; eight leaves room for whitespace).
      assert.ok(savedTokens >= removedBytes / 8, `${savedTokens} tokens reported for ${removedBytes} bytes removed`);
    });
  });
}
