import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type Anthropic from '@anthropic-ai/sdk';
import { startHarness, type Harness } from '../support/gateway-harness.js';
import { startMockAnthropic, startMockOpenAI, type MockUpstream } from '../support/mock-upstreams/index.js';
import { PRICING, rawClient, type RawClient } from '../support/chat-kit.js';
import { anthropicClient, trustingDispatcher } from '../support/sdk-clients.js';
import { MESSAGES_WEATHER_TOOL as WEATHER_TOOL } from '../support/weather-tool.js';

/**
 * The gateway the /v1/messages native pass-through tests share (docs/agent-endpoints.md): models
 * whose first target is Anthropic, mock upstreams behind them, and clients for a key.
 */

export const NATIVE = 'anthropic/claude-native';
export const MIXED = 'anthropic/claude-mixed'; // Anthropic first, then OpenAI: native, then translated fallback
export const PAIR = 'anthropic/claude-pair'; // two Anthropic targets: native fallback
export const RAW = 'anthropic/claude-raw'; // a hand-written upstream that sends an `error` event mid-stream

/** Anthropic's overloaded error arriving inside a 200 stream, after the first events. */
function startErrorEventUpstream(): Promise<{ server: Server; baseUrl: string }> {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const send = (type: string, payload: object) =>
        res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...payload })}\n\n`);
      send('message_start', {
        message: {
          id: 'msg_raw',
          type: 'message',
          role: 'assistant',
          model: 'raw',
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: { input_tokens: 25, output_tokens: 1 },
        },
      });
      send('content_block_start', { index: 0, content_block: { type: 'text', text: '' } });
      send('content_block_delta', { index: 0, delta: { type: 'text_delta', text: 'partial' } });
      send('error', { error: { type: 'overloaded_error', message: 'Overloaded' } });
      res.end();
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({ server, baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1` }),
    ),
  );
}

/** Everything the translation used to lose: thinking (history and setting), top_k, cache_control on tools and mid-turn tool_use, is_error, unknown fields. */
export function faithfulBody(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    model: 'claude-native',
    max_tokens: 2048,
    thinking: { type: 'enabled', budget_tokens: 1024 },
    top_k: 7,
    top_p: 0.9,
    stop_sequences: ['\n\nHuman:', 'END'],
    metadata: { user_id: 'user-42' },
    service_tier: 'auto',
    system: [{ type: 'text', text: 'You are terse.', cache_control: { type: 'ephemeral', ttl: '1h' } }],
    tools: [{ ...WEATHER_TOOL, cache_control: { type: 'ephemeral' } }],
    tool_choice: { type: 'auto' },
    messages: [
      {
        role: 'user',
        content: [{ type: 'text', text: 'Weather in Oslo and Rome?', cache_control: { type: 'ephemeral' } }],
      },
      {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 'Two cities: two calls.', signature: 'EqQBCkYIARgCIkBsig==' },
          { type: 'redacted_thinking', data: 'EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpP' },
          {
            type: 'tool_use',
            id: 'toolu_a',
            name: 'get_weather',
            input: { city: 'Oslo' },
            cache_control: { type: 'ephemeral' },
          },
          { type: 'tool_use', id: 'toolu_b', name: 'get_weather', input: { city: 'Rome' } },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'toolu_a', is_error: true, content: [{ type: 'text', text: 'timeout' }] },
          { type: 'tool_result', tool_use_id: 'toolu_b', content: '{"temp":24}', cache_control: { type: 'ephemeral' } },
        ],
      },
    ],
    ...extra,
  };
}

export const THINKING = { thinking: 'Oslo timed out; Rome is warm.', signature: 'EqQBCkYIARgCIkB_sig_2==' };

export interface NativeMessages {
  h: Harness;
  anthropic: MockUpstream;
  anthropicB: MockUpstream;
  openai: MockUpstream;
  org: { id: string; token: string };
  key: { id: string; key: string };
  raw: RawClient;
  client: Anthropic;
  /** POST /v1/messages with Anthropic's headers and the key's token (or `token`). */
  post(body: Record<string, unknown>, headers?: Record<string, string>, token?: string): ReturnType<Harness['gateway']>;
  /** Forgets what the mocks received and their scenarios. */
  reset(): void;
  stop(): Promise<void>;
}

export async function startNativeMessages(): Promise<NativeMessages> {
  const errorUpstream = await startErrorEventUpstream();
  const anthropic = await startMockAnthropic({ apiKey: 'sk-ant' });
  const anthropicB = await startMockAnthropic({ apiKey: 'sk-ant-b' });
  const openai = await startMockOpenAI({ apiKey: 'sk-openai' });
  const h = await startHarness({
    config: {
      providers: [
        { id: 'mock-anthropic', kind: 'anthropic', base_url: anthropic.baseUrl, api_key_env: 'MOCK_ANTHROPIC_KEY' },
        {
          id: 'mock-anthropic-b',
          kind: 'anthropic',
          base_url: anthropicB.baseUrl,
          api_key_env: 'MOCK_ANTHROPIC_B_KEY',
        },
        { id: 'mock-openai', kind: 'openai', base_url: openai.baseUrl, api_key_env: 'MOCK_OPENAI_KEY' },
        { id: 'raw-anthropic', kind: 'anthropic', base_url: errorUpstream.baseUrl },
      ],
      models: [
        {
          id: NATIVE,
          providers: [{ provider: 'mock-anthropic', model: 'claude-native-20250929' }],
          pricing: PRICING,
        },
        {
          id: MIXED,
          providers: [
            { provider: 'mock-anthropic', model: 'claude-mixed-up' },
            { provider: 'mock-openai', model: 'gpt-4o-mini' },
          ],
          pricing: PRICING,
        },
        {
          id: PAIR,
          providers: [
            { provider: 'mock-anthropic', model: 'claude-a' },
            { provider: 'mock-anthropic-b', model: 'claude-b' },
          ],
          pricing: PRICING,
        },
        { id: RAW, providers: [{ provider: 'raw-anthropic', model: 'claude-raw' }], pricing: PRICING },
      ],
      retry: { max_attempts: 2, base_delay_ms: 5, max_delay_ms: 50 },
    },
    env: { MOCK_ANTHROPIC_KEY: 'sk-ant', MOCK_ANTHROPIC_B_KEY: 'sk-ant-b', MOCK_OPENAI_KEY: 'sk-openai' },
  });
  const org = await h.organization();
  const key = await h.createKey(org);
  const raw = rawClient(h.running.urls.gateway, h.ca);
  const dispatcher = trustingDispatcher(h);
  const client = anthropicClient(h, key.key, dispatcher);
  return {
    h,
    anthropic,
    anthropicB,
    openai,
    org,
    key,
    raw,
    client,
    post: (body, headers = {}, token = key.key) =>
      h.gateway('POST', '/v1/messages', {
        headers: { 'x-api-key': token, 'anthropic-version': '2023-06-01', ...headers },
        body,
      }),
    reset() {
      for (const mock of [anthropic, anthropicB, openai]) mock.reset();
    },
    async stop() {
      await raw.close();
      await dispatcher.close();
      await h.stop();
      await Promise.all([anthropic.close(), anthropicB.close(), openai.close()]);
      errorUpstream.server.closeAllConnections();
      await new Promise((resolve) => errorUpstream.server.close(resolve));
    },
  };
}
