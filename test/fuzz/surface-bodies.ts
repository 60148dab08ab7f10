import fc from 'fast-check';
import { fields, jsonish, maybe, messages, tools, weirdString } from './arbitraries.js';

// Request bodies for the routes surfaces.fuzz.test.ts fuzzes: each near its route's schema, with
// members missing, of the wrong type or unknown (arbitraries.ts: fields, maybe, jsonish).

const block = fields({
  type: maybe('text', 'image', 'tool_use', 'tool_result', 'thinking', 'document'),
  text: maybe('hi'),
  id: maybe('toolu_1'),
  name: maybe('f'),
  input: jsonish,
  tool_use_id: maybe('toolu_1'),
  content: fc.oneof(maybe('out'), fc.array(fields({ type: maybe('text'), text: maybe('x') }), { maxLength: 2 })),
  source: fields({
    type: maybe('base64', 'url'),
    media_type: maybe('image/png'),
    data: maybe('AAAA'),
    url: maybe('https://x.test/a.png'),
  }),
  cache_control: fields({ type: maybe('ephemeral') }),
});
const anthropicMessage = fields({
  role: maybe('user', 'assistant'),
  content: fc.oneof(maybe('hello', ''), fc.array(block, { maxLength: 3 })),
});
export const messagesBody = fields({
  model: maybe('local/echo', 'echo', 'claude-sonnet-4-5', 'no/such'),
  max_tokens: maybe(1, 16, 0, -1, 1.5),
  messages: fc.oneof(
    { weight: 3, arbitrary: fc.array(anthropicMessage, { maxLength: 3 }) },
    { weight: 1, arbitrary: messages },
  ),
  system: fc.oneof(maybe('be brief'), fc.array(fields({ type: maybe('text'), text: maybe('x') }), { maxLength: 2 })),
  stream: maybe(true, false),
  tools: fc.oneof(
    tools,
    fc.array(fields({ name: maybe('f'), description: maybe('d'), input_schema: maybe({ type: 'object' }) }), {
      maxLength: 2,
    }),
  ),
  tool_choice: fields({ type: maybe('auto', 'any', 'tool', 'none'), name: maybe('f') }),
  metadata: fields({ user_id: maybe('u') }),
  stop_sequences: fc.oneof(jsonish, fc.array(weirdString, { maxLength: 2 })),
  temperature: maybe(0, 1, 2),
  thinking: fields({ type: maybe('enabled', 'disabled'), budget_tokens: maybe(1024, 0) }),
});
export const messagesCountBody = fields({
  model: maybe('local/echo', 'claude-sonnet-4-5'),
  messages: fc.array(anthropicMessage, { maxLength: 3 }),
  system: maybe('s'),
  tools,
});
const inputItem = fields({
  type: maybe('message', 'function_call', 'function_call_output', 'reasoning', 'input_text'),
  role: maybe('user', 'assistant', 'system', 'developer'),
  content: fc.oneof(
    maybe('hi'),
    fc.array(
      fields({
        type: maybe('input_text', 'output_text', 'input_image'),
        text: maybe('x'),
        image_url: maybe('https://x.test/i.png'),
      }),
      { maxLength: 2 },
    ),
  ),
  call_id: maybe('c1'),
  name: maybe('f'),
  arguments: maybe('{}', '{"a":'),
  output: fc.oneof(maybe('y'), jsonish),
});
export const responsesBody = fields({
  model: maybe('local/echo', 'echo', 'gpt-5', 'no/such'),
  input: fc.oneof(maybe('hi', ''), fc.array(inputItem, { maxLength: 3 })),
  instructions: maybe('be brief'),
  stream: maybe(true, false),
  max_output_tokens: maybe(16, 0, -1),
  tools: fc.oneof(
    jsonish,
    fc.array(
      fields({ type: maybe('function', 'web_search'), name: maybe('f'), parameters: maybe({ type: 'object' }) }),
      { maxLength: 2 },
    ),
  ),
  tool_choice: fc.oneof(maybe('auto', 'none', 'required'), fields({ type: maybe('function'), name: maybe('f') })),
  reasoning: fields({ effort: maybe('low', 'high', 'max') }),
  text: fields({ format: fields({ type: maybe('text', 'json_schema') }) }),
  store: maybe(true, false),
  previous_response_id: maybe('resp_1'),
});
export const tokenBody = fields({
  name: maybe('t', '', 'x'.repeat(201)),
  permission: maybe('read', 'write', 'admin'),
  expires_in_days: maybe(1, 0, 3651),
});
export const projectBody = fields({
  slug: maybe('p1', 'Bad Slug', ''),
  name: maybe('P', ''),
  domains: fc.oneof(jsonish, fc.array(maybe('a.example', 'UPPER.example', 'bad_domain', ''), { maxLength: 3 })),
});
const backend = fields({
  name: maybe('api', 'bad name'),
  url: maybe('https://api.example', 'http://127.0.0.1:1', 'ftp://x', 'not a url'),
  headers: jsonish,
});
export const proxyBody = fields({
  backends: fc.oneof(jsonish, fc.array(backend, { maxLength: 2 })),
  routes: fc.oneof(
    jsonish,
    fc.array(fields({ path: maybe('/api/*', '', 'no-slash'), backend: maybe('api'), strip_prefix: maybe(true) }), {
      maxLength: 2,
    }),
  ),
  comment: maybe('c'),
});
export const componentBody = fields({
  component: maybe('warehouse', 'webhook', 'nope'),
  component_id: maybe('x'),
  version: maybe('1', 'latest'),
  config: fields({ url: maybe('https://hook.example', 'http://10.0.0.1/'), secret: maybe('s') }),
  active: maybe(true),
});
export const toolBody = fields({
  active: maybe(true, false),
  hydrate: maybe(true, false),
  api_key_ids: fc.oneof(jsonish, fc.array(weirdString, { maxLength: 2 })),
  config: jsonish,
});
const event = fields({
  id: maybe('evt_1', '', 'x'.repeat(300)),
  type: maybe('page', 'track', 'identify', 'nope'),
  event: maybe('signup'),
  timestamp: maybe<unknown>('2026-01-01T00:00:00Z', 'yesterday', 0),
  data: jsonish,
  anonymous_id: maybe('a'),
  user_id: maybe('u'),
});
export const collectBody = fc.oneof(
  {
    weight: 3,
    arbitrary: fields({
      data_collection: fields({
        events: fc.oneof(fc.array(event, { minLength: 1, maxLength: 3 }), jsonish),
        context: jsonish,
      }),
    }),
  },
  { weight: 1, arbitrary: jsonish },
);
