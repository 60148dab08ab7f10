import { startHarness, type Harness } from './gateway-harness.js';
import { startMockOpenAI, startMockAnthropic, startMockGemini, type MockUpstream } from './mock-upstreams/index.js';
import { PRICING } from './chat-kit.js';

export type UpstreamName = 'openai' | 'anthropic' | 'gemini';

/** The catalogue id that routes to each mock. */
export const MODEL_OF: Record<UpstreamName, string> = {
  openai: 'openai/gpt-4o-mini',
  anthropic: 'anthropic/claude-haiku-4-5',
  gemini: 'google/gemini-2.5-flash',
};

export interface ThreeUpstreams {
  h: Harness;
  mocks: Record<UpstreamName, MockUpstream>;
  org: { id: string; token: string };
  key: { id: string; key: string };
  stop(): Promise<void>;
}

/** Providers and models a test adds to the three, made once the mocks listen. */
export type ExtraConfig = (mocks: Record<UpstreamName, MockUpstream>) => {
  providers: Array<Record<string, unknown>>;
  models: Array<Record<string, unknown>>;
};

/** A gateway over real HTTPS with one mock per provider kind and one model routed to each. */
export async function startThreeUpstreams(extra?: ExtraConfig): Promise<ThreeUpstreams> {
  const mocks: Record<UpstreamName, MockUpstream> = {
    openai: await startMockOpenAI({ apiKey: 'sk-openai' }),
    anthropic: await startMockAnthropic({ apiKey: 'sk-ant' }),
    gemini: await startMockGemini({ apiKey: 'g-key' }),
  };
  const added = extra?.(mocks) ?? { providers: [], models: [] };
  const h = await startHarness({
    config: {
      providers: [
        { id: 'mock-openai', kind: 'openai', base_url: mocks.openai.baseUrl, api_key_env: 'MOCK_OPENAI_KEY' },
        {
          id: 'mock-anthropic',
          kind: 'anthropic',
          base_url: mocks.anthropic.baseUrl,
          api_key_env: 'MOCK_ANTHROPIC_KEY',
        },
        { id: 'mock-gemini', kind: 'gemini', base_url: mocks.gemini.baseUrl, api_key_env: 'MOCK_GEMINI_KEY' },
        ...added.providers,
      ],
      models: [
        { id: MODEL_OF.openai, providers: [{ provider: 'mock-openai', model: 'gpt-4o-mini' }], pricing: PRICING },
        {
          id: MODEL_OF.anthropic,
          providers: [{ provider: 'mock-anthropic', model: 'claude-haiku-4-5' }],
          pricing: PRICING,
        },
        { id: MODEL_OF.gemini, providers: [{ provider: 'mock-gemini', model: 'gemini-2.5-flash' }], pricing: PRICING },
        ...added.models,
      ],
    },
    env: { MOCK_OPENAI_KEY: 'sk-openai', MOCK_ANTHROPIC_KEY: 'sk-ant', MOCK_GEMINI_KEY: 'g-key' },
  });
  const org = await h.organization();
  const key = await h.createKey(org);
  return {
    h,
    mocks,
    org,
    key: { id: key.id, key: key.key },
    async stop() {
      await h.stop();
      await Promise.all(Object.values(mocks).map((m) => m.close()));
    },
  };
}
