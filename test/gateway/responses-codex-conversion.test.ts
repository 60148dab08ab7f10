import { describe, it, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startHarness, type Harness } from '../support/gateway-harness.js';
import { startMockAgentUpstream, type MockUpstream } from '../support/mock-upstreams/index.js';
import { toolRoundTrip, PROBE_CONTENT } from '../support/agents/tool-round-trip.js';
import { sseData } from '../support/chat-kit.js';

/**
 * Codex's requests (test/fixtures/agents/codex) on /v1/responses for a model that is not
 * OpenAI's (issue 18, blocker 6): its `additional_tools` item, `namespace` tools and `custom`
 * exec tool become flat function tools; the model's call of `exec` comes back as the
 * `custom_tool_call` Codex runs; its `custom_tool_call` / `custom_tool_call_output` history goes
 * to the provider as tool use and result. Hosted tools are refused in OpenAI's words.
 */
const FIXTURES = resolve(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'agents', 'codex');
const recorded = (file: string) => JSON.parse(readFileSync(join(FIXTURES, file), 'utf8')) as { body: any };
const TOOL_CALL = recorded('01-tool-call.json').body;
const TOOL_RESULT = recorded('02-tool-result.json').body;
const MODEL = 'anthropic/claude-sonnet-5';
const KEY = 'sk-upstream-only';

describe('Codex on /v1/responses, translated for Anthropic', () => {
  let h: Harness;
  let mock: MockUpstream;
  let key: string;

  before(async () => {
    mock = await startMockAgentUpstream({ apiKey: KEY });
    h = await startHarness({
      env: { AGENT_MOCK_KEY: KEY },
      config: {
        providers: [{ id: 'anthropic', kind: 'anthropic', base_url: mock.baseUrl, api_key_env: 'AGENT_MOCK_KEY' }],
      },
    });
    const org = await h.organization();
    key = (await h.createKey(org)).key;
  });
  after(async () => {
    await h.stop();
    await mock.close();
  });
  beforeEach(() => {
    mock.reset();
    mock.setScenario(toolRoundTrip('/work/project'));
  });

  const post = (body: unknown) => h.gateway('POST', '/v1/responses', { token: key, body });

  it('flattens additional_tools and namespaces; exec becomes a function taking its script as input', async () => {
    const result = await post({ ...TOOL_CALL, model: MODEL });
    assert.equal(result.status, 200, result.text.slice(0, 600));
    const sent = mock.lastRequest()!.body;
    const names = sent.tools.map((t: any) => t.name);
    for (const name of ['exec', 'wait', 'sleep', 'spawn_agent']) assert.ok(names.includes(name), names.join(','));
    const exec = sent.tools.find((t: any) => t.name === 'exec');
    assert.deepEqual(exec.input_schema.required, ['input']);
    assert.equal(exec.input_schema.properties.input.type, 'string');
    assert.match(exec.input_schema.properties.input.description, /lark grammar/i);
    assert.ok(exec.description.startsWith('Run JavaScript code'));
    // Codex's developer messages are the system prompt; no item reached Anthropic as JSON.
    assert.ok(String(JSON.stringify(sent.system)).includes('You are Codex'));
  });

  it('streams the call of exec back as the custom_tool_call Codex runs, namespace included', async () => {
    const result = await post({ ...TOOL_CALL, model: MODEL });
    const events = sseData(result.text);
    const done = events.find((d) => d.type === 'response.output_item.done' && d.item.type !== 'message');
    assert.ok(done, result.text.slice(0, 800));
    assert.equal(done.item.type, 'custom_tool_call');
    assert.equal(done.item.name, 'exec');
    assert.equal(done.item.namespace, 'functions');
    assert.equal(done.item.call_id, 'call_probe_1');
    assert.match(done.item.input, /^const r = await tools\.exec_command/);
    const inputDone = events.find((d) => d.type === 'response.custom_tool_call_input.done');
    assert.equal(inputDone.input, done.item.input);
    const completed = events.find((d) => d.type === 'response.completed');
    assert.equal(completed.response.output.at(-1).type, 'custom_tool_call');
  });

  it('JSON answers name the custom tool the same way', async () => {
    const result = await post({ ...TOOL_CALL, model: MODEL, stream: false });
    assert.equal(result.status, 200, result.text.slice(0, 600));
    const call = result.json.output.find((item: any) => item.type !== 'message');
    assert.deepEqual(
      { type: call.type, name: call.name, namespace: call.namespace },
      { type: 'custom_tool_call', name: 'exec', namespace: 'functions' },
    );
  });

  it('sends the custom_tool_call and its output back as Anthropic tool use and result', async () => {
    const result = await post({ ...TOOL_RESULT, model: MODEL });
    assert.equal(result.status, 200, result.text.slice(0, 600));
    const sent = mock.lastRequest()!.body;
    const blocks = sent.messages.flatMap((m: any) => m.content);
    const use = blocks.find((b: any) => b.type === 'tool_use');
    assert.equal(use.name, 'exec');
    assert.match(use.input.input, /exec_command/);
    const toolResult = blocks.find((b: any) => b.type === 'tool_result');
    assert.equal(toolResult.tool_use_id, use.id);
    assert.match(JSON.stringify(toolResult.content), new RegExp(PROBE_CONTENT));
    assert.match(result.text, new RegExp(`Round trip done: ${PROBE_CONTENT}`));
  });

  it('refuses hosted tools and their items in OpenAI’s words', async () => {
    for (const [body, param] of [
      [{ model: MODEL, input: 'Search', tools: [{ type: 'web_search' }] }, 'tools[0].type'],
      [
        {
          model: MODEL,
          input: [
            { type: 'additional_tools', tools: [{ type: 'namespace', name: 'x', tools: [{ type: 'file_search' }] }] },
            { role: 'user', content: 'Hi' },
          ],
        },
        'input[0].tools[0].tools[0].type',
      ],
      [
        {
          model: MODEL,
          input: [
            { type: 'web_search_call', id: 'ws_1', status: 'completed' },
            { role: 'user', content: 'Hi' },
          ],
        },
        'input[0].type',
      ],
    ] as const) {
      const result = await post(body);
      assert.equal(result.status, 400, result.text);
      assert.equal(result.json.error.type, 'invalid_request_error');
      assert.equal(result.json.error.param, param);
      assert.match(result.json.error.message, /^Invalid value: '[a-z_]+'\. Supported values are: /);
    }
    assert.equal(mock.requests.length, 0);
  });
});
