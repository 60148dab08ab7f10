// The responses-style reader and writer on what Codex 0.169 really sends (test/fixtures/agents/
// codex, recorded from the CLI) and on every Responses item type that carries a tool output.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { compressPayload, CompressionInputError, type CompressResult } from '../../../src/compress/index.js';
import { readRequest } from '../../../src/compress/formats/index.js';
import { countBodyTokens } from '../../../src/compress/token-count.js';
import { tokenizerForModel } from '../../../src/tokenize/index.js';
import { fixtureText } from '../helpers/fixtures.js';

type Obj = Record<string, any>;

const FIXTURES = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'fixtures', 'agents', 'codex');
const recorded = (name: string): Obj => JSON.parse(readFileSync(join(FIXTURES, name), 'utf8')).body;
const clone = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

const NPM = fixtureText('npm-install.txt');
const PYTEST = fixtureText('pytest-verbose-failure.txt');
const PRETTY_JSON = JSON.stringify(
  { files: Array.from({ length: 40 }, (_, i) => ({ path: `src/module_${i}.py`, lines: 100 + i, ok: i % 3 !== 0 })) },
  null,
  2,
);

/** The recorded request that carries Codex's tool output, continued with longer outputs. */
function codexConversation(outputs: Array<{ type: string; call: Obj; output: unknown }>): Obj {
  const body = clone(recorded('02-tool-result.json'));
  outputs.forEach(({ type, call, output }, i) => {
    const callId = `call_more_${i}`;
    if (type === 'custom_tool_call_output')
      body.input.push({ type: 'custom_tool_call', id: `ctc_${i}`, status: 'completed', call_id: callId, ...call });
    else body.input.push({ type: 'function_call', id: `fc_${i}`, call_id: callId, ...call });
    body.input.push({ type, call_id: callId, output });
  });
  return body;
}

/** The same conversation with every custom tool call and output written as a function call and output. */
function asFunctionCalls(body: Obj): Obj {
  const copy = clone(body);
  copy.input = copy.input.map((item: Obj) => {
    if (item.type === 'custom_tool_call') {
      const { input, namespace: _namespace, status: _status, ...rest } = item;
      return { ...rest, type: 'function_call', arguments: input };
    }
    if (item.type === 'custom_tool_call_output') return { ...item, type: 'function_call_output' };
    return item;
  });
  return copy;
}

const withoutTime = (r: CompressResult) => ({ ...r.compression, compression_time_ms: 0 });
const count = (body: Obj) => countBodyTokens(body, 'responses', tokenizerForModel(String(body.model)));

describe('responses-style requests as Codex 0.169 sends them (recorded)', () => {
  it('reads the custom tool output as the result of its exec call, and the additional_tools item as definitions', () => {
    const { conversation } = readRequest(recorded('02-tool-result.json'));
    assert.equal(conversation.format, 'responses');
    assert.equal(conversation.results.length, 1);
    const [result] = conversation.results;
    assert.equal(result!.callId, 'call_probe_1');
    assert.equal(result!.call?.name, 'exec');
    assert.equal(result!.call?.args, null, 'JavaScript input is not JSON arguments');
    assert.equal(result!.editable, true);
    // Strategies see the command's output: exec's header and its result object are the envelope.
    assert.equal(result!.text, 'probe-content-7f3a9c\n');
    assert.equal(conversation.turnCount, 1);
    const names = conversation.tools.map((t) => t.name);
    assert.ok(names.includes('exec') && names.includes('spawn_agent') && names.includes('sleep'), names.join());
    assert.match(conversation.systemText, /You are Codex/);
  });

  it('writes a request back byte for byte when nothing was rewritten', () => {
    for (const name of ['01-tool-call.json', '02-tool-result.json']) {
      const body = recorded(name);
      const json = JSON.stringify(body);
      assert.equal(JSON.stringify(readRequest(body).write()), json, name);
      assert.equal(JSON.stringify(body), json, `${name} not mutated`);
    }
  });

  it('compresses only what may change: tool definitions tidied in place, every other item the same object', () => {
    const body = recorded('02-tool-result.json');
    const { body: out, compression } = compressPayload(body, { bundle: 'codex' });
    assert.deepEqual(compression.applied_strategies, ['tool_surface_reduction']);
    for (let i = 1; i < body.input.length; i++) assert.equal((out.input as Obj[])[i], body.input[i], `input[${i}]`);
    // The additional_tools item keeps every member and tool; descriptions differ in white space only.
    const before = body.input[0];
    const after = (out.input as Obj[])[0]!;
    assert.deepEqual(Object.keys(after), Object.keys(before));
    const flat = (tools: Obj[]): Obj[] => tools.flatMap((t) => (t.type === 'namespace' ? [t, ...flat(t.tools)] : [t]));
    const [a, b] = [flat(before.tools), flat(after.tools)];
    assert.equal(b.length, a.length);
    for (const [k, tool] of a.entries()) {
      const { description: d1, tools: _t1, ...rest1 } = tool;
      const { description: d2, tools: _t2, ...rest2 } = b[k]!;
      assert.deepEqual(rest2, rest1, tool.name);
      assert.equal(String(d2 ?? '').replace(/\s+/g, ''), String(d1 ?? '').replace(/\s+/g, ''), tool.name);
    }
  });

  it('reports what a re-count of the request before and after finds', () => {
    for (const name of ['01-tool-call.json', '02-tool-result.json']) {
      const body = recorded(name);
      const { body: out, compression } = compressPayload(body, { bundle: 'codex' });
      assert.equal(compression.uncompressed_input_tokens, count(body), name);
      assert.equal(compression.compressed_input_tokens, count(out), name);
      assert.ok(compression.compressed_input_tokens < compression.uncompressed_input_tokens, name);
    }
  });

  it('counts the tool definitions and custom tool items Codex sends', () => {
    const body = recorded('02-tool-result.json');
    const without = { ...body, input: body.input.slice(1, 7) };
    // The additional_tools item alone is ~18 KB of JSON: thousands of tokens, not a message frame.
    assert.ok(count({ ...body, input: body.input.slice(0, 7) }) - count(without) > 3000);
    const output = count(body) - count({ ...body, input: body.input.slice(0, 8) });
    assert.ok(output > 40, `the custom tool output counts ${output} tokens`);
  });
});

describe('tool outputs of every Responses item type Codex sends', () => {
  const longOutputs = [
    { type: 'custom_tool_call_output', call: { name: 'exec', input: '{"cmd":"npm install"}' }, output: NPM },
    {
      type: 'custom_tool_call_output',
      call: { name: 'exec', input: '{"cmd":"pytest -v"}' },
      output: [
        { type: 'input_text', text: 'Script completed\nWall time 2.1 seconds\nOutput:\n' },
        { type: 'input_text', text: PYTEST },
      ],
    },
    {
      type: 'custom_tool_call_output',
      call: { name: 'exec', input: '{"cmd":"cat report.json"}' },
      output: PRETTY_JSON,
    },
  ];

  it('a custom_tool_call_output is compressed exactly as the same output in a function_call_output', () => {
    const custom = codexConversation(longOutputs);
    const fn = asFunctionCalls(custom);
    assert.equal(count(custom), count(fn), 'counted alike');
    const a = compressPayload(custom, { bundle: 'codex' });
    const b = compressPayload(fn, { bundle: 'codex' });
    assert.deepEqual(withoutTime(a), withoutTime(b));
    assert.ok(a.compression.applied_strategies.length > 1, JSON.stringify(a.compression));
    const outputsOf = (body: Obj) => (body.input as Obj[]).filter((i) => /_output$/.test(i.type)).map((i) => i.output);
    assert.deepEqual(outputsOf(a.body), outputsOf(b.body));
    const saved = a.compression.uncompressed_input_tokens - a.compression.compressed_input_tokens;
    assert.ok(saved > 500, `saved ${saved} tokens`);
  });

  it('a rewritten output stays in its item and shape: ids kept, a string stays a string, parts become one part', () => {
    const body = codexConversation(longOutputs);
    const { body: out } = compressPayload(body, { bundle: 'codex' });
    const input = out.input as Obj[];
    assert.equal(input.length, body.input.length);
    for (const [i, item] of (body.input as Obj[]).entries()) {
      assert.equal(input[i]!.type, item.type, `input[${i}]`);
      assert.equal(input[i]!.call_id, item.call_id, `input[${i}]`);
      assert.equal(input[i]!.id, item.id, `input[${i}]`);
      if (item.type !== 'custom_tool_call_output') continue;
      if (typeof item.output === 'string') assert.equal(typeof input[i]!.output, 'string');
      else if (input[i]!.output !== item.output) {
        assert.equal(input[i]!.output.length, 1);
        assert.equal(input[i]!.output[0].type, 'input_text');
      }
    }
    const [npmAfter, pytestAfter, jsonAfter] = input.slice(-6).filter((i) => i.type === 'custom_tool_call_output');
    assert.ok(npmAfter!.output.length < NPM.length);
    assert.ok(JSON.stringify(pytestAfter!.output).length < PYTEST.length);
    assert.deepEqual(JSON.parse(jsonAfter!.output), JSON.parse(PRETTY_JSON));
  });

  it('a local_shell_call_output answers its local_shell_call by id and is compressed as a shell output', () => {
    const body = {
      model: 'gpt-5-codex',
      input: [
        { role: 'user', content: 'Install the dependencies.' },
        {
          type: 'local_shell_call',
          id: 'lsh_1',
          call_id: 'call_ls_1',
          status: 'completed',
          action: { type: 'exec', command: ['bash', '-lc', 'npm install'] },
        },
        { type: 'local_shell_call_output', id: 'call_ls_1', output: NPM },
      ],
    };
    const [result] = readRequest(body).conversation.results;
    assert.equal(result!.call?.name, 'local_shell');
    assert.deepEqual(result!.call?.args?.command, ['bash', '-lc', 'npm install']);
    const { body: out, compression } = compressPayload(body, { bundle: 'codex' });
    const item = (out.input as Obj[])[2]!;
    assert.equal(item.type, 'local_shell_call_output');
    assert.equal(item.id, 'call_ls_1');
    assert.equal(typeof item.output, 'string');
    assert.ok(item.output.length < NPM.length);
    assert.ok(compression.applied_strategies.includes('tool_result_trimming'), JSON.stringify(compression));
  });

  it('items of other types are carried untouched, also when they hold long text', () => {
    const others: Obj[] = [
      { type: 'reasoning', id: 'rs_1', summary: [], encrypted_content: 'gAAAA'.repeat(200) },
      { type: 'web_search_call', id: 'ws_1', status: 'completed', action: { type: 'search', query: 'x' } },
      { type: 'tool_search_output', call_id: 'ts_1', execution: 'client', status: 'completed', tools: [] },
      { type: 'mcp_call', id: 'mcp_1', server_label: 's', name: 'f', arguments: '{}', output: NPM },
      { type: 'compaction', encrypted_content: 'gAAAA'.repeat(100) },
      { type: 'agent_message', content: [{ type: 'output_text', text: PRETTY_JSON }] },
      { type: 'a_future_item', output: NPM },
    ];
    const body = codexConversation(longOutputs);
    body.input.splice(7, 0, ...others);
    const { conversation } = readRequest(body);
    assert.equal(conversation.results.length, 4, 'only the four tool outputs');
    const { body: out } = compressPayload(body, { bundle: 'codex' });
    others.forEach((item, k) => assert.equal((out.input as Obj[])[7 + k], body.input[7 + k], item.type));
  });

  it('reasoning between parallel custom and function calls keeps them in one turn', () => {
    const body = {
      model: 'gpt-5-codex',
      input: [
        { role: 'user', content: 'Go.' },
        { type: 'custom_tool_call', call_id: 'c1', name: 'apply_patch', input: '*** Begin Patch' },
        { type: 'reasoning', id: 'rs', summary: [] },
        { type: 'function_call', call_id: 'c2', name: 'exec_command', arguments: '{"cmd":"ls"}' },
        { type: 'custom_tool_call_output', call_id: 'c1', output: 'Done!' },
        { type: 'function_call_output', call_id: 'c2', output: 'a\nb' },
        { type: 'custom_tool_call', call_id: 'c3', name: 'apply_patch', input: '*** Begin Patch' },
        { type: 'custom_tool_call_output', call_id: 'c3', output: 'Done!' },
      ],
    };
    const { conversation } = readRequest(body);
    assert.equal(conversation.turnCount, 2);
    assert.deepEqual(
      conversation.results.map((r) => [r.callId, r.call?.name, r.turn]),
      [
        ['c1', 'apply_patch', 0],
        ['c2', 'exec_command', 0],
        ['c3', 'apply_patch', 1],
      ],
    );
  });
});

describe('responses-style tool definitions: flat, in namespaces, in additional_tools', () => {
  const annotated = {
    $schema: 'http://json-schema.org/draft-07/schema#',
    title: 'Args',
    type: 'object',
    properties: { cmd: { type: 'string', title: 'Cmd', description: 'Command.   ' } },
    required: ['cmd'],
    additionalProperties: false,
  };
  const grammar = { type: 'grammar', syntax: 'lark', definition: 'start: /.+/\n\n\n\n' };
  const namespace = {
    type: 'namespace',
    name: 'functions',
    description: '',
    tools: [
      { type: 'custom', name: 'exec', description: 'Run code.   \n\n\n\nMore.', format: grammar },
      { type: 'function', name: 'wait', description: 'Wait.', strict: true, parameters: annotated },
    ],
  };

  it('reduces function schemas and tidies descriptions inside namespaces; grammars, built-in tools and names untouched', () => {
    const webSearch = { type: 'web_search', search_context_size: 'low' };
    const body = {
      model: 'gpt-5-codex',
      tools: [webSearch, namespace],
      input: [
        { type: 'additional_tools', id: 'at_1', role: 'developer', tools: [namespace] },
        { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Hi' }] },
      ],
    };
    const before = clone(body);
    const { body: out, compression } = compressPayload(body, { bundle: 'codex' });
    assert.deepEqual(body, before, 'input not mutated');
    assert.deepEqual(compression.applied_strategies, ['tool_surface_reduction']);
    const tools = out.tools as Obj[];
    assert.equal(tools[0], webSearch);
    for (const ns of [tools[1]!, (out.input as Obj[])[0]!.tools[0]]) {
      assert.equal(ns.name, 'functions');
      assert.equal(ns.description, '');
      assert.deepEqual(ns.tools[0], {
        type: 'custom',
        name: 'exec',
        description: 'Run code.\n\nMore.',
        format: grammar,
      });
      assert.deepEqual(ns.tools[1], {
        type: 'function',
        name: 'wait',
        description: 'Wait.',
        strict: true,
        parameters: {
          type: 'object',
          properties: { cmd: { type: 'string', description: 'Command.' } },
          required: ['cmd'],
          additionalProperties: false,
        },
      });
    }
    const item = (out.input as Obj[])[0]!;
    assert.deepEqual(
      { ...item, tools: undefined },
      { type: 'additional_tools', id: 'at_1', role: 'developer', tools: undefined },
    );
    assert.equal((out.input as Obj[])[1], body.input[1]);
  });
});

describe('malformed Codex items', () => {
  const rejects = (input: Obj[], param: string) =>
    assert.throws(
      () => compressPayload({ model: 'm', input }),
      (e: unknown) => e instanceof CompressionInputError && e.param === param,
      param,
    );

  it('are refused naming the parameter, as the Responses API would refuse them', () => {
    rejects([{ type: 'custom_tool_call_output', output: 'x' }], 'input[0].call_id');
    rejects([{ type: 'custom_tool_call_output', call_id: 'c', output: 5 }], 'input[0].output');
    rejects([{ type: 'custom_tool_call', call_id: 'c', name: 'exec' }], 'input[0].input');
    rejects(
      [{ type: 'additional_tools', tools: [{ type: 'namespace', tools: [{ type: 'function' }] }] }],
      'input[0].tools[0].tools[0].name',
    );
  });
});
