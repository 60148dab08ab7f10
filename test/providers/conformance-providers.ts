/** The HTTP adapters the conformance suite runs, each against its own mock upstream. */
import { anthropicAdapter } from '../../src/providers/anthropic/index.js';
import { geminiAdapter } from '../../src/providers/gemini/index.js';
import { openaiAdapter } from '../../src/providers/openai/index.js';
import type { ProviderAdapter } from '../../src/providers/types.js';
import {
  startMockAnthropic,
  startMockGemini,
  startMockOpenAI,
  type MockOptions,
  type MockUpstream,
  type MockUsage,
} from '../support/mock-upstreams/index.js';

export type CaseName =
  | 'plain'
  | 'credentials'
  | 'stream'
  | 'usage'
  | 'tool-calls-out'
  | 'tool-calls-out-stream'
  | 'tool-calls-in'
  | 'http-400'
  | 'http-503'
  | 'http-429'
  | 'bad-credentials'
  | 'stream-http-error'
  | 'first-byte-timeout'
  | 'between-chunks-timeout'
  | 'abort-stream'
  | 'abort-before-headers'
  | 'early-return'
  | 'malformed-sse'
  | 'close-mid-stream'
  | 'crlf'
  | 'utf8-split'
  | 'connect-refused'
  | 'sanitised-errors';

export interface ProviderCase {
  name: string;
  adapter: ProviderAdapter;
  start: (options?: MockOptions) => Promise<MockUpstream>;
  model: string;
  /** Usage fields the provider's wire format can express. */
  usage: MockUsage;
  optOut?: Partial<Record<CaseName, string>>;
}

export const API_KEY = 'sk-test-conformance-key-123456';

export const PROVIDERS: ProviderCase[] = [
  {
    name: 'openai',
    adapter: openaiAdapter,
    start: startMockOpenAI,
    model: 'gpt-4o-mini',
    usage: {
      inputTokens: 120,
      cachedInputTokens: 64,
      cacheCreationInputTokens: 0,
      outputTokens: 30,
      reasoningTokens: 7,
    },
  },
  {
    name: 'anthropic',
    adapter: anthropicAdapter,
    start: startMockAnthropic,
    model: 'claude-3-5-haiku-latest',
    usage: {
      inputTokens: 120,
      cachedInputTokens: 64,
      cacheCreationInputTokens: 16,
      outputTokens: 30,
      reasoningTokens: 0,
    },
  },
  {
    name: 'gemini',
    adapter: geminiAdapter,
    start: startMockGemini,
    model: 'gemini-2.0-flash',
    usage: {
      inputTokens: 120,
      cachedInputTokens: 64,
      cacheCreationInputTokens: 0,
      outputTokens: 30,
      reasoningTokens: 7,
    },
  },
];
