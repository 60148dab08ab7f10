import assert from 'node:assert/strict';
import { Type } from '@sinclair/typebox';
import { startHarness, type Harness, type StoreKind } from '../support/gateway-harness.js';
import { startMockOpenAI, type MockUpstream } from '../support/mock-upstreams/index.js';
import { PRICING } from '../support/chat-kit.js';
import { gatewayToolRegistry } from '../../src/gateway-tools/registry.js';
import { ToolFailure, type GatewayTool } from '../../src/gateway-tools/types.js';

/** The gateway the chat-completions gateway-tool tests share: one mock OpenAI model, every tool on. */
export const MODEL = 'openai/gpt-4o-mini';
export const WEATHER = {
  type: 'function',
  function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } },
};

/** Test-only tools, registered in this process's registry: one that throws, one that never finishes. */
const throwingTool: GatewayTool = {
  id: 'gateway_test_throws',
  description: 'Always fails (test tool).',
  parameters: Type.Object({}),
  run: () => {
    throw new ToolFailure('the test tool failed on purpose');
  },
};
const hangingTool: GatewayTool = {
  id: 'gateway_test_hangs',
  description: 'Never finishes (test tool).',
  parameters: Type.Object({}),
  timeoutMs: 100,
  run: () => new Promise(() => undefined),
};

/** Sets a gateway tool's settings for an organization through the console API; its answer. */
export async function configureGatewayTool(
  h: Harness,
  org: { id: string; token: string },
  toolId: string,
  body: Record<string, unknown>,
): Promise<any> {
  const result = await h.console('POST', `/v1/organizations/${org.id}/gateway_tools/${toolId}`, {
    token: org.token,
    body,
  });
  assert.equal(result.status, 200, result.text);
  return result.json;
}

export interface ChatTools {
  h: Harness;
  mock: MockUpstream;
  org: { id: string; token: string };
  key: { id: string; key: string };
  /** Sets a gateway tool's settings for an organization. */
  configure(o: { id: string; token: string }, toolId: string, body: Record<string, unknown>): Promise<any>;
  /** A chat completion asking the time, with `body` merged in, under the key (or `token`). */
  chat(body: Record<string, unknown>, token?: string): ReturnType<Harness['gateway']>;
  stop(): Promise<void>;
}

export async function startChatTools(store: StoreKind): Promise<ChatTools> {
  gatewayToolRegistry.register(throwingTool);
  gatewayToolRegistry.register(hangingTool);
  const mock = await startMockOpenAI({ apiKey: 'sk-mock' });
  const h = await startHarness({
    store,
    config: {
      providers: [{ id: 'mock', kind: 'openai', base_url: mock.baseUrl, api_key_env: 'MOCK_KEY' }],
      models: [{ id: MODEL, providers: [{ provider: 'mock', model: 'gpt-4o-mini' }], pricing: PRICING }],
    },
    env: { MOCK_KEY: 'sk-mock' },
  });
  const org = await h.organization();
  const key = await h.createKey(org);
  const configure = (o: { id: string; token: string }, toolId: string, body: Record<string, unknown>) =>
    configureGatewayTool(h, o, toolId, body);
  for (const id of ['gateway_current_time', 'gateway_calculator', 'gateway_test_throws', 'gateway_test_hangs'])
    await configure(org, id, { active: true });
  return {
    h,
    mock,
    org,
    key,
    configure,
    chat: (body, token = key.key) =>
      h.gateway('POST', '/v1/chat/completions', {
        token,
        body: { model: MODEL, messages: [{ role: 'user', content: 'What time is it?' }], ...body },
      }),
    async stop() {
      await h.stop();
      await mock.close();
      gatewayToolRegistry.unregister(throwingTool.id);
      gatewayToolRegistry.unregister(hangingTool.id);
    },
  };
}
