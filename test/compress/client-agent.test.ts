// The agent and session a usage row is tagged with, read from requests the real CLIs sent
// (test/fixtures/agents/): src/compress/client-agent.ts and clientSessionFrom in session-headers.ts.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { clientAgentFrom } from '../../src/compress/client-agent.js';
import { clientSessionFrom } from '../../src/compress/session-headers.js';

type Headers = Record<string, string>;

const recorded = (path: string): Headers =>
  (JSON.parse(readFileSync(new URL(`../fixtures/agents/${path}`, import.meta.url), 'utf8')) as { headers: Headers })
    .headers;

describe('client agent and session', () => {
  it('names each recorded agent with its version, and its session from its own header', () => {
    const cases = [
      ['claude-code-2.1.332/01-tool-call.json', 'claude-cli/2.1.332', 'x-claude-code-session-id'],
      ['codex-0.171.0/01-tool-call.json', 'codex_exec/0.171.0', 'session-id'],
      ['opencode/01-side.json', 'opencode/1.18.33', 'x-session-id'],
    ] as const;
    for (const [path, agent, header] of cases) {
      const headers = recorded(path);
      assert.equal(clientAgentFrom(headers['user-agent']), agent, path);
      assert.equal(clientSessionFrom(headers), headers[header], path);
    }
  });

  it('keeps a subagent, thread or context window in its parent session', () => {
    assert.equal(clientSessionFrom({ 'x-claude-code-session-id': 's', 'x-claude-code-agent-id': 'sub' }), 's');
    assert.equal(clientSessionFrom({ 'session-id': 's', 'thread-id': 't', 'x-codex-window-id': 't:2' }), 's');
  });

  it("prefers the gateway's own session header, and ignores ids too long to be ids", () => {
    assert.equal(clientSessionFrom({ 'x-gateway-session-id': 'g', 'x-claude-code-session-id': 's' }), 'g');
    assert.equal(clientSessionFrom({ 'x-session-id': 'x'.repeat(257) }), undefined);
    assert.equal(clientSessionFrom({}), undefined);
  });

  it('leaves SDKs and unknown clients without an agent', () => {
    for (const userAgent of ['OpenAI/JS 4.0', 'Bun/1.4.0', 'curl/8.5.0', '', undefined])
      assert.equal(clientAgentFrom(userAgent), undefined, String(userAgent));
    assert.equal(clientAgentFrom('Codex_CLI_RS/0.20.0 (Linux)'), 'codex_cli_rs/0.20.0');
  });
});
