import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startHarness, type Harness } from '../support/gateway-harness.js';
import {
  startMockAgentUpstream,
  startMockAnthropic,
  startMockOpenAI,
  type MockUpstream,
} from '../support/mock-upstreams/index.js';
import { PRICING } from '../support/chat-kit.js';
import { BREVITY_INSTRUCTION } from '../../src/pipeline/output-brevity.js';

/**
 * Output brevity (issue 19, item 5): off unless the key or the request asks; when on, the upstream
 * receives the fixed instruction at the end of the system prompt on every endpoint, byte for byte
 * the same on every turn, and never a gateway header or member.
 */
describe('output brevity: a key setting and a request header', () => {
  let h: Harness;
  let openai: MockUpstream;
  let anthropic: MockUpstream;
  let responses: MockUpstream;
  let org: { id: string; token: string };
  let plain: string;
  let brief: { id: string; key: string };

  before(async () => {
    openai = await startMockOpenAI();
    anthropic = await startMockAnthropic();
    responses = await startMockAgentUpstream();
    h = await startHarness({
      config: {
        providers: [
          { id: 'mock-openai', kind: 'openai', base_url: openai.baseUrl, api_key_env: 'MOCK_KEY' },
          { id: 'mock-anthropic', kind: 'anthropic', base_url: anthropic.baseUrl, api_key_env: 'MOCK_KEY' },
          {
            id: 'mock-responses',
            kind: 'openai',
            base_url: responses.baseUrl,
            api_key_env: 'MOCK_KEY',
            responses_api: true,
          },
        ],
        models: [
          { id: 'test/gpt', providers: [{ provider: 'mock-openai', model: 'gpt' }], pricing: PRICING },
          { id: 'anthropic/claude', providers: [{ provider: 'mock-anthropic', model: 'claude' }], pricing: PRICING },
          { id: 'openai/codex', providers: [{ provider: 'mock-responses', model: 'codex' }], pricing: PRICING },
        ],
      },
      env: { MOCK_KEY: 'sk-mock' },
    });
    org = await h.organization();
    plain = (await h.createKey(org, { name: 'plain' })).key;
    brief = await h.createKey(org, { name: 'brief', output_brevity: true });
  });
  after(async () => {
    await h?.stop();
    await Promise.all([openai.close(), anthropic.close(), responses.close()]);
  });

  const chatBody = (turns: number) => ({
    model: 'test/gpt',
    messages: [
      { role: 'system', content: 'You are a coding agent.' },
      ...Array.from({ length: turns }, (_, i) => [
        { role: 'user', content: `Step ${i}` },
        { role: 'assistant', content: `Done ${i}` },
      ]).flat(),
      { role: 'user', content: 'Next' },
    ],
  });

  it('is off by default and shown on the key', async () => {
    const result = await h.gateway('POST', '/v1/chat/completions', { token: plain, body: chatBody(0) });
    assert.equal(result.status, 200, result.text);
    assert.ok(!JSON.stringify(openai.lastRequest()!.body).includes(BREVITY_INSTRUCTION));
    const shown = await h.console('GET', `/v1/organizations/${org.id}/api_keys/${brief.id}`, { token: org.token });
    assert.equal(shown.json.output_brevity, true);
  });

  it('chat completions: the instruction follows the system prompt, the same bytes on every turn', async () => {
    const sent: unknown[][] = [];
    for (const turns of [0, 1, 2]) {
      const result = await h.gateway('POST', '/v1/chat/completions', { token: brief.key, body: chatBody(turns) });
      assert.equal(result.status, 200, result.text);
      sent.push(openai.lastRequest()!.body.messages as unknown[]);
    }
    for (const messages of sent) {
      assert.deepEqual(messages.slice(0, 2), [
        { role: 'system', content: 'You are a coding agent.' },
        { role: 'system', content: BREVITY_INSTRUCTION },
      ]);
    }
    const headers = openai.lastRequest()!.headers;
    assert.ok(!Object.keys(headers).some((name) => name.startsWith('x-gateway')), 'no gateway header upstream');
  });

  it('X-Gateway-Output-Brevity overrides the key both ways; a bad value is a 400 in the OpenAI envelope', async () => {
    await h.gateway('POST', '/v1/chat/completions', {
      token: brief.key,
      headers: { 'x-gateway-output-brevity': 'off' },
      body: chatBody(0),
    });
    assert.ok(!JSON.stringify(openai.lastRequest()!.body).includes(BREVITY_INSTRUCTION));
    await h.gateway('POST', '/v1/chat/completions', {
      token: plain,
      headers: { 'x-gateway-output-brevity': 'on' },
      body: chatBody(0),
    });
    assert.ok(JSON.stringify(openai.lastRequest()!.body).includes(BREVITY_INSTRUCTION));
    const bad = await h.gateway('POST', '/v1/chat/completions', {
      token: plain,
      headers: { 'x-gateway-output-brevity': 'sometimes' },
      body: chatBody(0),
    });
    assert.equal(bad.status, 400);
    assert.equal(bad.json.error.param, 'x-gateway-output-brevity');
  });

  it('/v1/messages (native to Anthropic): a text block after the client system blocks', async () => {
    const system = [{ type: 'text', text: 'You are Claude Code.', cache_control: { type: 'ephemeral' } }];
    const result = await h.gateway('POST', '/v1/messages', {
      token: brief.key,
      headers: { 'anthropic-version': '2023-06-01' },
      body: { model: 'anthropic/claude', max_tokens: 100, system, messages: [{ role: 'user', content: 'Hi' }] },
    });
    assert.equal(result.status, 200, result.text);
    const sent = anthropic.lastRequest()!.body.system as Array<{ text: string }>;
    assert.equal(sent[0]!.text, 'You are Claude Code.');
    assert.equal(sent.at(-1)!.text, BREVITY_INSTRUCTION);
  });

  it('/v1/responses (native to OpenAI): appended to the instructions', async () => {
    const result = await h.gateway('POST', '/v1/responses', {
      token: brief.key,
      body: { model: 'openai/codex', instructions: 'Codex rules.', input: 'Hi' },
    });
    assert.equal(result.status, 200, result.text);
    assert.equal(responses.lastRequest()!.path, '/v1/responses');
    assert.equal(responses.lastRequest()!.body.instructions, `Codex rules.\n\n${BREVITY_INSTRUCTION}`);
  });

  it('can be turned off through the console API', async () => {
    const updated = await h.console('POST', `/v1/organizations/${org.id}/api_keys/${brief.id}`, {
      token: org.token,
      body: { output_brevity: false },
    });
    assert.equal(updated.json.output_brevity, false);
    await h.gateway('POST', '/v1/chat/completions', { token: brief.key, body: chatBody(0) });
    assert.ok(!JSON.stringify(openai.lastRequest()!.body).includes(BREVITY_INSTRUCTION));
  });
});
