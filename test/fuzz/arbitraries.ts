import assert from 'node:assert/strict';
import fc from 'fast-check';
import type { Harness, HttpResult } from '../support/gateway-harness.js';

/**
 * Generators and answer checks shared by the fuzz suites. Every property runs `runs(n)` cases:
 * its CI default `n`, chosen so a property takes a few seconds on a loaded machine, or
 * FUZZ_RUNS when set, to go deeper locally (`FUZZ_RUNS=5000 node scripts/run-tests.mjs fuzz`).
 * FUZZ_SEED replays a failure; the seed is printed with every suite.
 */
export function runs(ciDefault: number): number {
  const wanted = process.env.FUZZ_RUNS;
  return wanted ? Math.max(1, Number(wanted)) : ciDefault;
}
export const RUNS = runs(60);
export const SEED = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : Date.now() ^ (Math.random() * 0x7fffffff);

/** Bodies a parser must refuse cleanly: nesting far past any limit, numbers past a double. */
export const HOSTILE_JSON_TEXTS = [
  '['.repeat(100_000) + ']'.repeat(100_000),
  '{"a":'.repeat(20_000) + '1' + '}'.repeat(20_000),
  '['.repeat(100_000),
  '{"model":"local/echo","max_tokens":1e400}',
  '{"model":"local/echo","temperature":-1e999,"messages":[]}',
  `{"n":${'9'.repeat(400)}}`,
];

export const STACK_TRACE =
  /\n\s+at\s|\bat\s+\S+\s+\(?\/|(?:\/|\\)(?:src|node_modules|work|home|tmp)(?:\/|\\)\S+\.(?:ts|js|mjs|cjs)|\.(?:ts|js):\d+:\d+|\b[A-Z][A-Za-z]*Error: [^"]*\/[^"]*\.(?:ts|js)/;

// ---- generators -------------------------------------------------------------------------------

/** Objects that break code which stringifies or coerces input (String(x), `${x}`, x + ''). */
export const hostile = fc.constantFrom<unknown>(
  { toString: null },
  { toString: null, valueOf: null },
  [{ toString: null }],
  { length: -1 },
  { constructor: null },
);
/** Any value JSON can carry, including ones from fc.anything() that survive serialisation. */
export const jsonish = fc.oneof(
  fc.jsonValue(),
  hostile,
  fc.anything({ maxDepth: 3 }).map((value) => {
    try {
      const text = JSON.stringify(value);
      return text === undefined ? null : (JSON.parse(text) as unknown);
    } catch {
      return null;
    }
  }),
);
export const weirdString = fc.oneof(
  fc.string(),
  fc.string({ unit: 'grapheme' }),
  fc.constantFrom(
    '',
    ' ',
    '\u0000',
    '__proto__',
    'constructor',
    '../..',
    '%00',
    '\uD800',
    'a/b/c',
    'x'.repeat(300),
    '{}',
    'null',
  ),
);
/** A plausible value for a field, or a value of a random type. */
export const maybe = <T>(...plausible: T[]) =>
  fc.oneof(
    { weight: 2, arbitrary: fc.constantFrom(...plausible) },
    { weight: 1, arbitrary: jsonish },
    { weight: 1, arbitrary: weirdString },
  );
/** An object with some of the given fields (each plausible or random) and sometimes an extra one. */
export function fields(shape: Record<string, fc.Arbitrary<unknown>>): fc.Arbitrary<Record<string, unknown>> {
  return fc
    .tuple(
      fc.record(shape, { requiredKeys: [] }),
      fc.option(fc.dictionary(weirdString, jsonish, { maxKeys: 2 }), { nil: undefined }),
    )
    .map(([known, extra]) => ({ ...(extra ?? {}), ...known }));
}

export const message = fields({
  role: maybe('system', 'user', 'assistant', 'tool', 'developer'),
  content: fc.oneof(
    maybe('hello', '', null),
    fc.array(fields({ type: maybe('text', 'image_url'), text: maybe('hi'), image_url: jsonish }), { maxLength: 3 }),
  ),
  name: maybe('alice'),
  tool_call_id: maybe('call_1'),
  refusal: maybe('no'),
  tool_calls: fc.oneof(
    jsonish,
    fc.array(
      fields({
        id: maybe('call_1'),
        type: maybe('function'),
        function: fields({ name: maybe('f'), arguments: maybe('{}', '{"a":1}') }),
      }),
      { maxLength: 2 },
    ),
  ),
  cache_control: fc.oneof(jsonish, fields({ type: maybe('ephemeral') })),
});
export const messages = fc.oneof(
  { weight: 3, arbitrary: fc.array(message, { maxLength: 4 }) },
  { weight: 1, arbitrary: jsonish },
);
export const tools = fc.oneof(
  jsonish,
  fc.array(
    fields({
      type: maybe('function'),
      function: fields({
        name: maybe('f', 'get_weather'),
        description: maybe('d'),
        parameters: maybe({ type: 'object' }, {}),
      }),
    }),
    { maxLength: 2 },
  ),
);

export const chatBody = fields({
  model: maybe('local/echo', 'openai/gpt-4o-mini', 'nope/nope', 'no-slash'),
  messages,
  max_tokens: maybe(1, 16, 0, -1, 1.5, 1e12),
  temperature: maybe(0, 1, 2, 3, -1),
  stream: maybe(true, false),
  stream_options: fc.oneof(jsonish, fields({ include_usage: maybe(true, false) })),
  tools,
  tool_choice: fc.oneof(
    maybe('none', 'auto', 'required'),
    fields({ type: maybe('auto', 'none', 'function', 'required'), function: fields({ name: maybe('f') }) }),
  ),
  gateway_tool_ids: fc.oneof(jsonish, fc.array(weirdString, { maxLength: 3 })),
  gateway_pending_id: maybe('pending_1'),
  tags: fc.oneof(jsonish, fc.array(weirdString, { maxLength: 3 })),
  enable_debug: maybe(true, false),
  compression_model: maybe('claude', 'codex', 'opencode', 'cursor'),
  compression: maybe(true, false),
});
export const countTokensBody = fields({
  model: maybe('local/echo', 'openai/gpt-4o', 'anthropic/claude-sonnet-4-5', 'no-slash'),
  messages,
  system: fc.oneof(maybe('be brief'), fc.array(fields({ type: maybe('text'), text: maybe('x') }), { maxLength: 2 })),
  tools,
  tokenizer: maybe('cl100k_base', 'o200k_base', 'gpt2'),
});
export const compressBody = fc.oneof(
  chatBody,
  fields({
    model: maybe('anthropic/claude-sonnet-4-5'),
    system: fc.oneof(maybe('sys'), fc.array(fields({ type: maybe('text'), text: maybe('x') }))),
    messages,
    tools,
    max_tokens: maybe(100),
  }),
  fields({
    model: maybe('openai/gpt-5'),
    input: fc.oneof(
      maybe('hi'),
      fc.array(
        fields({
          type: maybe('message', 'function_call_output'),
          role: maybe('user'),
          content: maybe('x'),
          output: maybe('y'),
          call_id: maybe('c'),
        }),
      ),
    ),
    instructions: maybe('i'),
    tools,
  }),
);
export const createKeyBody = fields({
  name: maybe('key', '', 'x'.repeat(201)),
  type: maybe('api', 'coding_agent', 'other'),
  coding_assistant: maybe('claude_code', 'codex', 'opencode', 'cursor'),
  models: fc.oneof(jsonish, fc.array(maybe('openai/gpt-4o-mini', 'local/echo', 'bad'), { maxLength: 3 })),
  max_usage: maybe(0, 10, null, -1, 1.5, 1e15),
  expires_in_days: maybe(1, 30, 0, 3651, 1.5),
  email: maybe('a@b.c', 'not-an-email'),
  debug_mode: maybe(true, false),
  compression: maybe(true, false),
  organization_id: maybe('other-org'),
  key: maybe('gw-x'),
});
export const updateKeyBody = fields({
  name: maybe('renamed', ''),
  active: maybe(true, false),
  models: fc.oneof(jsonish, fc.array(maybe('openai/gpt-4o-mini', 'bad'), { maxLength: 3 })),
  max_usage: maybe(5, null, -5),
  compression: maybe(true, false),
  organization_id: maybe('other-org'),
  id: maybe('x'),
});

/** The body to send: a random JSON value, a shaped object, or raw text that may not be JSON at all. */
export type Payload = { kind: 'json'; value: unknown } | { kind: 'raw'; text: string } | { kind: 'none' };
export function payload(shaped: fc.Arbitrary<unknown>): fc.Arbitrary<Payload> {
  return fc.oneof(
    { weight: 4, arbitrary: shaped.map((value): Payload => ({ kind: 'json', value })) },
    { weight: 2, arbitrary: jsonish.map((value): Payload => ({ kind: 'json', value })) },
    {
      weight: 1,
      arbitrary: fc
        .oneof(
          weirdString,
          fc.constantFrom(
            '{',
            '[1,]',
            '{"a":1}}',
            'nul',
            '{"__proto__":{"x":1}}',
            '{"constructor":{"prototype":{}}}',
            ...HOSTILE_JSON_TEXTS,
          ),
        )
        .map((text): Payload => ({ kind: 'raw', text })),
    },
    { weight: 1, arbitrary: fc.constant<Payload>({ kind: 'none' }) },
  );
}

export const headerValue = fc.stringMatching(/^[\x20-\x7e]{0,40}$/).map((s) => s.trim());
export const headers = fc.record(
  {
    'content-type': fc.oneof(
      fc.constantFrom(
        'application/json',
        'application/json; charset=utf-8',
        'text/plain',
        'application/x-www-form-urlencoded',
        'multipart/form-data',
        'application/json; charset=utf-16',
        '*/*',
      ),
      headerValue,
    ),
    accept: fc.constantFrom('application/json', 'text/event-stream', '*/*', 'text/html'),
    'x-request-id': headerValue,
    'x-gateway-tags': headerValue,
    'x-gateway-debug': fc.constantFrom('true', '1', 'no', ''),
    'x-gateway-compression-model': fc.oneof(fc.constantFrom('claude', 'codex', 'opencode', 'cursor'), headerValue),
  },
  { requiredKeys: [] },
);
export const query = fc
  .option(
    fc.dictionary(fc.oneof(fc.constantFrom('provider', 'limit', '__proto__'), weirdString), weirdString, {
      maxKeys: 3,
    }),
    { nil: undefined },
  )
  .map((q) => {
    if (!q) return '';
    const search = new URLSearchParams();
    for (const [k, v] of Object.entries(q)) search.append(k, v);
    return `?${search.toString()}`;
  });

// ---- assertions -------------------------------------------------------------------------------

export function assertNoLeak(result: HttpResult, what: string): void {
  assert.ok(
    !STACK_TRACE.test(result.text),
    `${what}: a stack trace or source path leaked: ${result.text.slice(0, 500)}`,
  );
}

export function assertGatewayAnswer(result: HttpResult, what: string): void {
  assert.ok(result.status < 500, `${what}: ${result.status} ${result.text.slice(0, 300)}`);
  assertNoLeak(result, what);
  if (result.status < 400) return;
  assert.ok(
    result.json && typeof result.json === 'object',
    `${what}: error body is not JSON: ${result.text.slice(0, 200)}`,
  );
  const error = result.json.error;
  assert.equal(typeof error?.message, 'string', what);
  assert.equal(typeof error.type, 'string', what);
  assert.ok(error.code === null || typeof error.code === 'string', what);
  assert.ok(error.param === null || typeof error.param === 'string', what);
}

export function assertConsoleAnswer(result: HttpResult, what: string): void {
  assert.ok(result.status < 500, `${what}: ${result.status} ${result.text.slice(0, 300)}`);
  assertNoLeak(result, what);
  if (result.status < 400) return;
  assert.ok(
    result.json && typeof result.json === 'object',
    `${what}: error body is not JSON: ${result.text.slice(0, 200)}`,
  );
  assert.equal(typeof result.json.error, 'string', what);
  assert.equal(typeof result.json.message, 'string', what);
}

export function describeRequest(
  method: string,
  path: string,
  body: Payload,
  sentHeaders: Record<string, string>,
): string {
  const shown =
    body.kind === 'json'
      ? JSON.stringify(body.value)
      : body.kind === 'raw'
        ? `raw ${JSON.stringify(body.text)}`
        : 'no body';
  return `${method} ${path} headers=${JSON.stringify(sentHeaders)} body=${shown?.slice(0, 400)}`;
}

/** Sends one request: JSON bodies serialised by hand so the content-type under test is kept. */
export async function send(
  call: Harness['gateway'],
  method: string,
  path: string,
  body: Payload,
  sentHeaders: Record<string, string>,
): Promise<HttpResult> {
  const init: Parameters<Harness['gateway']>[2] = { headers: sentHeaders };
  if (body.kind === 'json') init.rawBody = JSON.stringify(body.value) ?? 'null';
  if (body.kind === 'raw') init.rawBody = body.text;
  return call(method, path, init);
}

export async function check(property: fc.IAsyncPropertyWithHooks<any> | fc.IAsyncProperty<any>): Promise<void> {
  await fc.assert(property, { numRuns: RUNS, seed: SEED, endOnFailure: true, includeErrorInReport: true });
}
