// The session headers each agent sends (src/compress/session-headers.ts), read from the requests
// the real CLIs sent (test/fixtures/agents/): each history an agent keeps apart gets its own key.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { sessionIdFrom } from '../../src/compress/session-headers.js';

type Headers = Record<string, string>;

const recorded = (path: string): Headers =>
  (JSON.parse(readFileSync(new URL(`../fixtures/agents/${path}`, import.meta.url), 'utf8')) as { headers: Headers })
    .headers;

describe('session headers', () => {
  it("Claude Code: the session id; a subagent's agent id makes a key of its own", () => {
    for (const path of ['claude-code/02-tool-call.json', 'claude-code-2.1.332/01-tool-call.json']) {
      const headers = recorded(path);
      const main = sessionIdFrom(headers)!;
      assert.ok(main.includes(headers['x-claude-code-session-id']!), path);
      const subagent = sessionIdFrom({
        ...headers,
        'x-claude-code-agent-id': 'a1b2c3',
        'x-claude-code-parent-agent-id': 'root',
      });
      assert.notEqual(subagent, main, path);
      assert.notEqual(sessionIdFrom({ ...headers, 'x-claude-code-agent-id': 'd4e5f6' }), subagent, path);
    }
    // Both requests of one recorded session: one key.
    assert.equal(
      sessionIdFrom(recorded('claude-code/02-tool-call.json')),
      sessionIdFrom(recorded('claude-code/03-tool-result.json')),
    );
  });

  it('Codex: session, thread and context window; a new window (after a compaction) or another thread is another key', () => {
    for (const dir of ['codex', 'codex-0.171.0']) {
      const headers = recorded(`${dir}/01-tool-call.json`);
      const key = sessionIdFrom(headers)!;
      assert.equal(key, sessionIdFrom(recorded(`${dir}/02-tool-result.json`)), dir);
      for (const name of ['session-id', 'thread-id', 'x-codex-window-id'])
        assert.ok(key.includes(headers[name]!), name);
      const thread = headers['thread-id']!;
      assert.notEqual(sessionIdFrom({ ...headers, 'x-codex-window-id': `${thread}:1` }), key, dir);
      assert.notEqual(sessionIdFrom({ ...headers, 'thread-id': 'subagent-thread' }), key, dir);
    }
    assert.notEqual(
      sessionIdFrom(recorded('codex/01-tool-call.json')),
      sessionIdFrom(recorded('codex-0.171.0/01-tool-call.json')),
    );
    assert.ok(sessionIdFrom({ session_id: 'abc' })?.includes('abc'), 'the underscore spelling too');
  });

  it("opencode: x-session-id and x-session-affinity, its side requests' too", () => {
    const headers = recorded('opencode/02-tool-call.json');
    const key = sessionIdFrom(headers)!;
    assert.ok(key.includes(headers['x-session-id']!));
    assert.equal(sessionIdFrom(recorded('opencode/01-side.json')), key);
    assert.ok(sessionIdFrom({ 'x-session-affinity': 'ses_1' })?.includes('ses_1'));
    assert.notEqual(sessionIdFrom({ 'x-session-id': 'ses_2' }), key);
  });

  it("the gateway's own header; none: no key; a value too long to be an id is ignored", () => {
    assert.ok(sessionIdFrom({ 'x-gateway-session-id': 'mine' })?.includes('mine'));
    assert.equal(sessionIdFrom({ 'user-agent': 'curl/8' }), undefined);
    assert.equal(sessionIdFrom({ 'x-gateway-session-id': 'x'.repeat(257) }), undefined);
    assert.equal(
      sessionIdFrom({ 'x-gateway-session-id': ['first', 'second'] }),
      sessionIdFrom({ 'x-gateway-session-id': 'first' }),
    );
  });
});
