// Records the requests each pinned coding-agent CLI release sends during a tool-use round trip,
// straight to the mock upstream (no gateway in between), as fixtures under
// test/fixtures/agents/<cli>/ (the release pinned first) or <cli>-<version>/ (the newer ones).
// Run it after pinning a new release (AGENT_RELEASES in agent-clis.ts):
//   node --import tsx test/support/agents/record-fixtures.ts [claude-code|codex|opencode|<version> ...]
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startMockAgentUpstream, type RecordedRequest } from '../mock-upstreams/index.js';
import { AGENT_RELEASES, CLI_PACKAGES, cliVersion, makeProject, runAgent, type AgentRelease } from './agent-clis.js';
import { offeredTools, toolResults, toolRoundTrip } from './tool-round-trip.js';
import { FINAL_PREFIX } from './tool-round-trip.js';

const FIXTURES = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', 'fixtures', 'agents');
/** Headers that identify the caller or the connection, not the request: never stored. */
const DROPPED_HEADERS = new Set(['authorization', 'x-api-key', 'host', 'content-length', 'connection']);

function kindOf(request: RecordedRequest): string {
  if (request.method !== 'POST') return `${request.method.toLowerCase()}-probe`;
  if (toolResults(request).length > 0) return 'tool-result';
  if (offeredTools(request).length > 0) return 'tool-call';
  return 'side';
}

/** Run-specific paths become placeholders, so re-recording changes only what the CLI changed. */
function sanitize(value: string, project: { dir: string; home: string }): string {
  return value.split(project.dir).join('/work/project').split(project.home).join('/home/user');
}

/** The first pinned release keeps the plain CLI name, which other tests read its fixtures by. */
function fixtureDir(release: AgentRelease): string {
  const name = release.install === CLI_PACKAGES[release.cli] ? release.cli : `${release.cli}-${cliVersion(release)}`;
  return join(FIXTURES, name);
}

async function record(release: AgentRelease): Promise<void> {
  const { cli } = release;
  const project = makeProject();
  const mock = await startMockAgentUpstream();
  mock.setScenario(toolRoundTrip(project.dir));
  try {
    const run = await runAgent(release, { origin: mock.url, apiKey: 'sk-fixture' }, project, { timeoutMs: 120_000 });
    if (run.status !== 0 || !run.stdout.includes(FINAL_PREFIX))
      throw new Error(`${cli} did not complete the round trip (exit ${run.status}):\n${run.stdout}\n${run.stderr}`);
    const dir = fixtureDir(release);
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    for (const [i, request] of mock.requests.entries()) {
      const headers = Object.fromEntries(
        Object.entries(request.headers).filter(([name]) => !DROPPED_HEADERS.has(name.toLowerCase())),
      );
      const fixture = {
        cli,
        version: cliVersion(release),
        recorded: new Date().toISOString().slice(0, 10),
        method: request.method,
        path: request.path,
        headers,
        body: request.body,
      };
      const name = `${String(i + 1).padStart(2, '0')}-${kindOf(request)}.json`;
      writeFileSync(join(dir, name), sanitize(JSON.stringify(fixture, null, 2), project) + '\n');
    }
    process.stdout.write(
      `${cli} ${cliVersion(release)}: ${readdirSync(dir).join(', ')} (${Math.round(run.elapsedMs)} ms)\n`,
    );
  } finally {
    await mock.close();
    project.cleanup();
  }
}

const wanted = process.argv.slice(2);
const chosen = AGENT_RELEASES.filter(
  (release) => wanted.length === 0 || wanted.includes(release.cli) || wanted.includes(cliVersion(release)),
);
for (const release of chosen) await record(release);
