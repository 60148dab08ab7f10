import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { get_encoding } from 'tiktoken';
import { countRequestTokens, detectMessageFormat, TOKENIZERS } from '../../src/tokenize/index.js';

const encoders = Object.fromEntries(TOKENIZERS.map((name) => [name, get_encoding(name)]));
after(() => Object.values(encoders).forEach((e) => e.free()));
const tok = (text: string, tokenizer: (typeof TOKENIZERS)[number] = 'o200k_base') =>
  encoders[tokenizer]!.encode_ordinary(text).length;

describe('detectMessageFormat', () => {
  it('reads messages-style content blocks as messages-style', () => {
    for (const type of ['tool_use', 'tool_result', 'image', 'thinking', 'redacted_thinking', 'document']) {
      assert.equal(
        detectMessageFormat({ role: 'user', content: [{ type: 'text', text: 'x' }, { type }] }),
        'messages',
        type,
      );
    }
  });

  it('reads chat structures as chat', () => {
    assert.equal(detectMessageFormat({ role: 'user', content: 'hi' }), 'chat');
    assert.equal(detectMessageFormat({ role: 'user', content: [{ type: 'text', text: 'hi' }] }), 'chat');
    assert.equal(
      detectMessageFormat({ role: 'user', content: [{ type: 'image_url', image_url: { url: 'x' } }] }),
      'chat',
    );
    assert.equal(detectMessageFormat({ role: 'assistant', content: null, tool_calls: [] }), 'chat');
    assert.equal(detectMessageFormat({ role: 'tool', tool_call_id: 'c1', content: 'ok' }), 'chat');
    assert.equal(detectMessageFormat({ role: 'system', content: [{ type: 'text', text: 'x' }] }), 'chat');
    assert.equal(detectMessageFormat('not a message'), 'chat');
  });
});

describe('countRequestTokens, chat format', () => {
  // OpenAI cookbook "How to count tokens with tiktoken": the API reported 129 prompt tokens for
  // these messages on gpt-4-0613 (cl100k_base) and 124 on gpt-4o (o200k_base).
  const cookbook = [
    {
      role: 'system',
      content: 'You are a helpful, pattern-following assistant that translates corporate jargon into plain English.',
    },
    { role: 'system', name: 'example_user', content: 'New synergies will help drive top-line growth.' },
    { role: 'system', name: 'example_assistant', content: 'Things working well together will increase revenue.' },
    {
      role: 'system',
      name: 'example_user',
      content: "Let's circle back when we have more bandwidth to touch base on opportunities for increased leverage.",
    },
    {
      role: 'system',
      name: 'example_assistant',
      content: "Let's talk later when we're less busy about how to do better.",
    },
    { role: 'user', content: "This late pivot means we don't have time to boil the ocean for the client deliverable." },
  ];

  it("matches the API's prompt_tokens on OpenAI's published example", () => {
    assert.equal(countRequestTokens({ messages: cookbook }, 'cl100k_base'), 129);
    assert.equal(countRequestTokens({ messages: cookbook }, 'o200k_base'), 124);
  });

  it('is 3 priming tokens for an empty body', () => {
    assert.equal(countRequestTokens({}, 'o200k_base'), 3);
    assert.equal(countRequestTokens({ messages: [] }, 'cl100k_base'), 3);
  });

  it('counts text parts like the same string content', () => {
    const asString = countRequestTokens({ messages: [{ role: 'user', content: 'Hello there' }] }, 'o200k_base');
    const asParts = countRequestTokens(
      { messages: [{ role: 'user', content: [{ type: 'text', text: 'Hello there' }] }] },
      'o200k_base',
    );
    assert.equal(asParts, asString);
    assert.equal(asString, 3 + 3 + tok('user') + tok('Hello there'));
  });

  it('prices images by detail: 85 at low, 765 otherwise', () => {
    const image = (detail?: string) => ({
      role: 'user',
      content: [{ type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA', ...(detail ? { detail } : {}) } }],
    });
    const framing = 3 + 3 + tok('user');
    assert.equal(countRequestTokens({ messages: [image('low')] }, 'o200k_base'), framing + 85);
    assert.equal(countRequestTokens({ messages: [image('high')] }, 'o200k_base'), framing + 765);
    assert.equal(countRequestTokens({ messages: [image()] }, 'o200k_base'), framing + 765);
  });

  it('counts tool calls as name + arguments + 3, and tool results as content', () => {
    const args = '{"command":"ls -F"}';
    const messages = [
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'bash', arguments: args } }],
      },
      { role: 'tool', tool_call_id: 'call_1', content: 'README.md\r\nsrc/' },
    ];
    const expected =
      3 + (3 + tok('assistant') + 3 + tok('bash') + tok(args)) + (3 + tok('tool') + tok('README.md\r\nsrc/'));
    assert.equal(countRequestTokens({ messages }, 'o200k_base'), expected);
  });

  it('counts special-token text in messages as ordinary text', () => {
    const content = 'ignore <|endoftext|><|im_start|>system';
    assert.equal(
      countRequestTokens({ messages: [{ role: 'user', content }] }, 'cl100k_base'),
      3 + 3 + tok('user', 'cl100k_base') + tok(content, 'cl100k_base'),
    );
  });
});

describe('countRequestTokens, messages-style format', () => {
  it('counts a top-level system string as a system message', () => {
    const messagesStyle = countRequestTokens(
      { system: 'Be brief.', messages: [{ role: 'user', content: 'Hi' }] },
      'o200k_base',
    );
    const chat = countRequestTokens(
      {
        messages: [
          { role: 'system', content: 'Be brief.' },
          { role: 'user', content: 'Hi' },
        ],
      },
      'o200k_base',
    );
    assert.equal(messagesStyle, chat);
  });

  it('counts a system array of text blocks block by block', () => {
    const system = [
      { type: 'text', text: 'Be brief.' },
      { type: 'text', text: 'Answer in French.', cache_control: { type: 'ephemeral' } },
    ];
    assert.equal(
      countRequestTokens({ system }, 'o200k_base'),
      3 + 3 + tok('system') + tok('Be brief.') + tok('Answer in French.'),
    );
  });

  it('counts tool_use, tool_result, thinking and image blocks', () => {
    const input = { path: 'src/a.ts' };
    const messages = [
      {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 'Look at the file.', signature: 'c2lnbmF0dXJl' },
          { type: 'tool_use', id: 'toolu_1', name: 'read', input },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'toolu_1', content: [{ type: 'text', text: 'export const a = 1;' }] },
          { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'AAAA' } },
        ],
      },
    ];
    const expected =
      3 +
      (3 + tok('assistant') + tok('Look at the file.') + 3 + tok('read') + tok(JSON.stringify(input))) +
      (3 + tok('user') + tok('export const a = 1;') + 1600);
    assert.equal(countRequestTokens({ messages }, 'o200k_base'), expected);
  });

  it('counts a mixed history, each message in its own format', () => {
    const chatMessage = { role: 'user', content: 'Hi' };
    const blockMessage = { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't', content: 'done' }] };
    assert.equal(
      countRequestTokens({ messages: [chatMessage, blockMessage] }, 'o200k_base'),
      3 + (3 + tok('user') + tok('Hi')) + (3 + tok('user') + tok('done')),
    );
  });
});

describe('countRequestTokens, tool definitions', () => {
  const parameters = {
    type: 'object',
    properties: {
      path: { type: 'string', description: 'File to read' },
      mode: { type: 'string', enum: ['text', 'hex'] },
    },
    required: ['path'],
  };
  const base = { messages: [{ role: 'user', content: 'Read it' }] };

  it('renders chat and responses-style tools alike, as OpenAI shows them', () => {
    const chat = countRequestTokens(
      { ...base, tools: [{ type: 'function', function: { name: 'read', description: 'Read a file', parameters } }] },
      'o200k_base',
    );
    const flat = countRequestTokens(
      { ...base, tools: [{ type: 'function', name: 'read', description: 'Read a file', parameters }] },
      'o200k_base',
    );
    assert.equal(flat, chat);
    const rendered = [
      'namespace functions {',
      '',
      '// Read a file',
      'type read = (_: {',
      '// File to read',
      'path: string,',
      'mode?: "text" | "hex",',
      '}) => any;',
      '',
      '} // namespace functions',
    ].join('\n');
    assert.equal(chat, countRequestTokens(base, 'o200k_base') + 9 + tok(rendered));
  });

  it('renders messages-style tools as Anthropic shows them: JSON, the whole input_schema included', () => {
    const schema = { $schema: 'https://json-schema.org/draft/2020-12/schema', ...parameters };
    const anthropic = countRequestTokens(
      { ...base, tools: [{ name: 'read', description: 'Read a file', input_schema: schema }] },
      'o200k_base',
    );
    const rendered = [
      '<functions>',
      `<function>${JSON.stringify({ description: 'Read a file', name: 'read', parameters: schema })}</function>`,
      '</functions>',
    ].join('\n');
    assert.equal(anthropic, countRequestTokens(base, 'o200k_base') + 9 + tok(rendered));
    // What a compressor removes from a schema is counted as removed.
    const without = countRequestTokens(
      { ...base, tools: [{ name: 'read', description: 'Read a file', input_schema: parameters }] },
      'o200k_base',
    );
    assert.ok(anthropic - without >= 10, `${anthropic} vs ${without}`);
  });

  it('adds nothing for an empty tools array, and counts unknown tools as JSON', () => {
    assert.equal(countRequestTokens({ ...base, tools: [] }, 'o200k_base'), countRequestTokens(base, 'o200k_base'));
    const serverTool = { type: 'web_search_20250305', name: 'web_search', max_uses: 5 };
    assert.equal(
      countRequestTokens({ ...base, tools: [serverTool] }, 'o200k_base'),
      countRequestTokens(base, 'o200k_base') + 9 + tok(JSON.stringify(serverTool)),
    );
  });
});
