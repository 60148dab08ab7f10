// The tool surface, decided once per conversation (src/compress/tool-surface.ts): groups the
// key's finished conversations offered 24+ times and never called are dropped at a new
// conversation's first request, and exactly those are dropped on every later request.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  compressConversationRequest,
  type ConversationRequest,
  type ConversationResult,
  type ConversationStore,
} from '../../src/compress/conversation-request.js';
import type { ConversationState } from '../../src/compress/conversation-state.js';
import { toolGroup, type ToolGroupHistory } from '../../src/compress/tool-surface.js';
import { anthropicConversationRequest } from '../support/conversation-request.js';

type Obj = Record<string, any>;

/** The engine's state per conversation, kept as the store keeps it (a stored decision is never replaced). */
function memoryStore(tools: ToolGroupHistory): ConversationStore & {
  tools: ToolGroupHistory;
  states: Map<string, ConversationState>;
} {
  const states = new Map<string, ConversationState>();
  return {
    tools,
    states,
    async load(_key, id) {
      return states.get(id);
    },
    async save(_key, id, state) {
      const stored = states.get(id);
      states.set(id, { ...state, droppedToolGroups: stored?.droppedToolGroups ?? state.droppedToolGroups });
    },
    async history() {
      return [];
    },
    async toolGroupHistory() {
      return this.tools;
    },
    async recordUsage() {},
  };
}

/** A key whose finished conversations offered these groups `offered` times and called `called`. */
function keyHistory(offered: number, called: string[] = ['Bash', 'Read', 'mcp__slack']): ToolGroupHistory {
  const groups = ['Bash', 'Read', 'mcp__github', 'mcp__slack', 'web_search', 'github'];
  return { conversations: offered, offered: Object.fromEntries(groups.map((g) => [g, offered])), called };
}

const schema = (prop: string) => ({ type: 'object', properties: { [prop]: { type: 'string' } }, required: [prop] });
const TOOLS: Array<{ name: string; description: string; parameters: Obj }> = [
  { name: 'Bash', description: 'Run a shell command.', parameters: schema('command') },
  { name: 'Read', description: 'Read a file.', parameters: schema('path') },
  {
    name: 'mcp__github__create_issue',
    description: 'Create a GitHub issue in a repository, with a title and a body.',
    parameters: schema('title'),
  },
  {
    name: 'mcp__github__list_pull_requests',
    description: 'List the open pull requests of a repository.',
    parameters: schema('repo'),
  },
  { name: 'mcp__slack__post_message', description: 'Post a message to a Slack channel.', parameters: schema('text') },
];

/** Messages-style (Claude Code) request after `turns` Bash calls. */
function messagesBody(turns: number, extra: Obj = {}, called = 'Bash'): Obj {
  const messages: Obj[] = [{ role: 'user', content: 'Fix the failing test in src/app.py.' }];
  for (let i = 0; i < turns; i++) {
    messages.push({
      role: 'assistant',
      content: [
        { type: 'text', text: `Step ${i}.` },
        { type: 'tool_use', id: `toolu_${i}`, name: called, input: { command: `ls ${i}` } },
      ],
    });
    messages.push({ role: 'user', content: [{ type: 'tool_result', tool_use_id: `toolu_${i}`, content: `out ${i}` }] });
  }
  return {
    model: 'claude-sonnet-4-5',
    system: 'You are a coding agent.',
    tools: TOOLS.map((t) => ({ name: t.name, description: t.description, input_schema: t.parameters })),
    messages,
    max_tokens: 1000,
    ...extra,
  };
}

function chatBody(turns: number, extra: Obj = {}): Obj {
  const messages: Obj[] = [
    { role: 'system', content: 'You are a coding agent.' },
    { role: 'user', content: 'Fix the failing test.' },
  ];
  for (let i = 0; i < turns; i++) {
    messages.push({
      role: 'assistant',
      content: null,
      tool_calls: [{ id: `c${i}`, type: 'function', function: { name: 'Bash', arguments: `{"command":"ls ${i}"}` } }],
    });
    messages.push({ role: 'tool', tool_call_id: `c${i}`, content: `out ${i}` });
  }
  return { model: 'gpt-4o', tools: TOOLS.map((t) => ({ type: 'function', function: t })), messages, ...extra };
}

const names = (body: Obj): string[] => (body.tools as Obj[]).map((t) => t.name ?? t.function?.name);

async function send(
  store: ConversationStore,
  body: Obj,
  over: Partial<ConversationRequest> = {},
): Promise<ConversationResult & { body: Obj }> {
  return (await compressConversationRequest(
    body,
    anthropicConversationRequest({ store, ...over }),
  )) as ConversationResult & {
    body: Obj;
  };
}

describe('tool groups', () => {
  it('MCP tools group by server, namespaced tools by namespace, others by name', () => {
    assert.equal(toolGroup('mcp__github__create_issue'), 'mcp__github');
    assert.equal(toolGroup('mcp__github'), 'mcp__github');
    assert.equal(toolGroup('exec', 'functions'), 'functions');
    assert.equal(toolGroup('Bash'), 'Bash');
  });
});

describe('tool surface: the decision at a new conversation', () => {
  it("drops the MCP server's tools that 24 finished conversations of the key offered and never called; the rest stay", async () => {
    for (const [shape, body] of [
      ['messages', messagesBody(0)],
      ['chat', chatBody(0)],
    ] as const) {
      const store = memoryStore(keyHistory(24));
      const result = await send(store, body);
      assert.deepEqual(names(result.body), ['Bash', 'Read', 'mcp__slack__post_message'], shape);
      assert.ok(result.compression!.applied_strategies.includes('tool_surface_decision'), shape);
      assert.ok(
        result.compression!.compressed_input_tokens < result.compression!.uncompressed_input_tokens - 40,
        `${shape}: ${JSON.stringify(result.compression)}`,
      );
      assert.deepEqual(store.states.get(result.conversationId)?.droppedToolGroups, ['mcp__github']);
      assert.deepEqual(body.tools.length, 5, 'the body as sent is not mutated');
    }
  });

  it('with 23 such conversations nothing is dropped', async () => {
    const store = memoryStore(keyHistory(23));
    const body = messagesBody(0);
    const result = await send(store, body);
    assert.deepEqual(names(result.body), names(body));
    assert.ok(!result.compression!.applied_strategies.includes('tool_surface_decision'));
    assert.deepEqual(store.states.get(result.conversationId)?.droppedToolGroups, []);
  });

  it('records the groups the first request offers and the groups called', async () => {
    const store = memoryStore(keyHistory(0));
    const result = await send(store, messagesBody(2));
    const state = store.states.get(result.conversationId)!;
    // Only servers' groups can ever be dropped, so only they are recorded as offered.
    assert.deepEqual(state.offeredToolGroups, ['mcp__github', 'mcp__slack']);
    assert.deepEqual(state.calledToolGroups, ['Bash']);
  });

  it("never drops the agent's own tools, however rarely its conversations call them", async () => {
    // 30 finished conversations offered Read and never called it (nor GitHub): GitHub goes, Read stays.
    const store = memoryStore(keyHistory(30, ['Bash', 'mcp__slack']));
    const first = await send(store, messagesBody(0));
    assert.deepEqual(names(first.body), ['Bash', 'Read', 'mcp__slack__post_message']);
    assert.deepEqual(store.states.get(first.conversationId)?.droppedToolGroups, ['mcp__github']);
  });
});

describe('tool surface: later requests', () => {
  it('reproduce the decision byte for byte, and keep it when the key history changes afterwards', async () => {
    const store = memoryStore(keyHistory(30));
    const first = await send(store, messagesBody(0));
    const second = await send(store, messagesBody(1), { now: 1_020_000 });
    assert.equal(JSON.stringify(second.body.tools), JSON.stringify(first.body.tools));
    // Another conversation of the key starts using GitHub; and the key no longer uses Slack.
    store.tools = keyHistory(30, ['Bash', 'Read', 'mcp__github']);
    const third = await send(store, messagesBody(2), { now: 1_040_000 });
    assert.equal(JSON.stringify(third.body.tools), JSON.stringify(first.body.tools));
    assert.deepEqual(names(third.body), ['Bash', 'Read', 'mcp__slack__post_message']);
    assert.deepEqual(store.states.get(third.conversationId)?.droppedToolGroups, ['mcp__github']);
  });

  it('a conversation that decided to drop nothing never drops anything later, whatever the history says', async () => {
    const store = memoryStore(keyHistory(3));
    const first = await send(store, messagesBody(0));
    assert.equal(first.body.tools.length, 5);
    store.tools = keyHistory(100);
    const later = await send(store, messagesBody(3), { now: 1_060_000 });
    assert.equal(JSON.stringify(later.body.tools), JSON.stringify(first.body.tools));
  });

  it('a conversation stored before decisions existed keeps every tool', async () => {
    const store = memoryStore(keyHistory(30));
    const legacy: ConversationState = {
      maskBefore: 0,
      rewriteAt: null,
      requests: 4,
      lastRequestAt: 990_000,
      lastCacheRead: null,
      lastCacheWrite: null,
      savedUnits: 0,
    };
    const probe = await send(memoryStore(keyHistory(0)), messagesBody(4));
    store.states.set(probe.conversationId, legacy);
    const result = await send(store, messagesBody(4));
    assert.equal(result.body.tools.length, 5);
    assert.deepEqual(store.states.get(result.conversationId)?.droppedToolGroups, []);
  });
});

describe('tool surface: what is never dropped', () => {
  it("a group the request's history calls", async () => {
    const store = memoryStore(keyHistory(30));
    const result = await send(store, messagesBody(1, {}, 'mcp__github__list_pull_requests'));
    assert.equal(result.body.tools.length, 5);
  });

  it('a tool named by tool_choice (chat, Anthropic, Responses allowed_tools), and every tool under required/any', async () => {
    const cases: Array<[string, Obj, () => Obj]> = [
      ['Anthropic tool', { type: 'tool', name: 'mcp__github__create_issue' }, () => messagesBody(0)],
      ['Anthropic any', { type: 'any' }, () => messagesBody(0)],
      ['chat function', { type: 'function', function: { name: 'mcp__github__create_issue' } }, () => chatBody(0)],
      ['chat required', 'required' as unknown as Obj, () => chatBody(0)],
      [
        'allowed_tools',
        { type: 'allowed_tools', mode: 'auto', tools: [{ type: 'function', name: 'mcp__github__create_issue' }] },
        () => chatBody(0),
      ],
    ];
    for (const [label, choice, make] of cases) {
      const result = await send(memoryStore(keyHistory(30)), { ...make(), tool_choice: choice });
      assert.equal(result.body.tools.length, 5, label);
    }
    // Control: the same chat body without tool_choice drops GitHub.
    assert.equal((await send(memoryStore(keyHistory(30)), chatBody(0))).body.tools.length, 3);
  });

  it('a request is never left without tools, and server tools are never dropped', async () => {
    const onlyGithub = messagesBody(0);
    onlyGithub.tools = onlyGithub.tools.filter((t: Obj) => t.name.startsWith('mcp__github'));
    const store = memoryStore(keyHistory(30));
    const result = await send(store, onlyGithub);
    assert.equal(result.body.tools.length, 2);
    assert.deepEqual(store.states.get(result.conversationId)?.droppedToolGroups, []);

    const withServerTool = messagesBody(0);
    withServerTool.tools = [
      { type: 'web_search_20250305', name: 'web_search', max_uses: 3 },
      ...withServerTool.tools.filter((t: Obj) => t.name.startsWith('mcp__github')),
    ];
    const served = await send(memoryStore(keyHistory(30, [])), withServerTool);
    assert.deepEqual(names(served.body), ['web_search'], 'GitHub goes, the server tool stays');
  });
});

describe('tool surface: X-Gateway-Tool-Surface off', () => {
  it('drops nothing and stores an empty decision, so the conversation stays stable when it is on again', async () => {
    const store = memoryStore(keyHistory(30));
    const first = await send(store, messagesBody(0), { toolSurface: false });
    assert.equal(first.body.tools.length, 5);
    assert.ok(!first.compression!.applied_strategies.includes('tool_surface_decision'));
    assert.deepEqual(store.states.get(first.conversationId)?.droppedToolGroups, []);
    const later = await send(store, messagesBody(1), { now: 1_020_000 });
    assert.equal(JSON.stringify(later.body.tools), JSON.stringify(first.body.tools));
  });
});

describe('tool surface: Responses bodies', () => {
  it('drops a namespace and an additional_tools item left empty; every other item stays the same object', async () => {
    const fn = (name: string) => ({
      type: 'function',
      name,
      description: `The ${name} tool.`,
      parameters: schema('x'),
    });
    const body: Obj = {
      model: 'gpt-5',
      instructions: 'You are Codex.',
      tools: [
        fn('shell'),
        { type: 'web_search' },
        { type: 'namespace', name: 'github', description: 'GitHub', tools: [fn('create_issue'), fn('list_prs')] },
      ],
      input: [
        { type: 'additional_tools', tools: [fn('mcp__github__search')] },
        { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Hi' }] },
        { type: 'function_call', call_id: 'c1', name: 'shell', arguments: '{"x":"ls"}' },
        { type: 'function_call_output', call_id: 'c1', output: 'a\nb' },
      ],
    };
    const store = memoryStore(keyHistory(30, []));
    const result = await send(store, body, { provider: { kind: 'openai', id: 'openai', baseUrl: undefined } });
    assert.deepEqual(
      (result.body.tools as Obj[]).map((t) => t.name ?? t.type),
      ['shell', 'web_search'],
    );
    assert.equal(result.body.input.length, 3, 'the additional_tools item held GitHub tools only');
    for (let i = 1; i < 4; i++) assert.equal(result.body.input[i - 1], body.input[i]);
    assert.deepEqual(store.states.get(result.conversationId)?.droppedToolGroups, ['github', 'mcp__github']);
    assert.ok(result.compression!.applied_strategies.includes('tool_surface_decision'));
  });

  it('keeps a namespace one of whose tools the history calls (namespace of the call item)', async () => {
    const fn = (name: string) => ({ type: 'function', name, parameters: schema('x') });
    const body: Obj = {
      model: 'gpt-5',
      tools: [fn('shell'), { type: 'namespace', name: 'github', tools: [fn('create_issue'), fn('list_prs')] }],
      input: [
        { type: 'function_call', call_id: 'c1', name: 'list_prs', namespace: 'github', arguments: '{}' },
        { type: 'function_call_output', call_id: 'c1', output: '[]' },
      ],
    };
    const result = await send(memoryStore(keyHistory(30, [])), body, {
      provider: { kind: 'openai', id: 'openai', baseUrl: undefined },
    });
    assert.equal(result.body.tools.length, 2);
  });
});
