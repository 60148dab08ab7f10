import { startHarness, type Harness } from '../gateway-harness.js';
import { startMockAgentUpstream, type MockUpstream } from '../mock-upstreams/index.js';
import { toolRoundTrip } from './tool-round-trip.js';

/** The providers' key: the only credentials the mock accepts, and all it may ever see. */
export const UPSTREAM_KEY = 'sk-upstream-only';

/** The config whose `anthropic` and `openai` providers are the mock at `baseUrl`, keyed by AGENT_MOCK_KEY. */
export function agentGatewayConfig(baseUrl: string) {
  return {
    providers: [
      { id: 'anthropic', kind: 'anthropic' as const, base_url: baseUrl, api_key_env: 'AGENT_MOCK_KEY' },
      {
        id: 'openai',
        kind: 'openai' as const,
        base_url: baseUrl,
        api_key_env: 'AGENT_MOCK_KEY',
        // Like api.openai.com, the mock serves the Responses API: /v1/responses passes through natively.
        responses_api: true,
      },
    ],
  };
}

/**
 * The gateway the agent CLIs' requests go through: its `anthropic` and `openai` providers are
 * both the mock agent upstream, which answers with a tool-use round trip in `projectDir`
 * (tool-round-trip.ts). The key the mock takes is the providers', never the client's.
 */
export async function startAgentGateway(projectDir: string): Promise<{ mock: MockUpstream; harness: Harness }> {
  const mock = await startMockAgentUpstream({ apiKey: UPSTREAM_KEY });
  mock.setScenario(toolRoundTrip(projectDir));
  try {
    const harness = await startHarness({
      env: { AGENT_MOCK_KEY: UPSTREAM_KEY },
      config: agentGatewayConfig(mock.baseUrl),
    });
    return { mock, harness };
  } catch (error) {
    await mock.close();
    throw error;
  }
}
