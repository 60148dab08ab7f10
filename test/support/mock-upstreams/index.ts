import { anthropicFormat } from './anthropic-format.js';
import { geminiFormat } from './gemini-format.js';
import { openaiFormat } from './openai-format.js';
import { responsesFormat } from './responses-format.js';
import { startMockServer } from './server.js';
import type { MockOptions, MockUpstream } from './types.js';

export type {
  MockOptions,
  MockScenario,
  MockToolCall,
  MockUpstream,
  MockUsage,
  RecordedRequest,
  ScenarioSource,
} from './types.js';
export { DEFAULT_TEXT } from './scenario-helpers.js';

/** OpenAI chat completions at `${baseUrl}/chat/completions` (baseUrl ends in /v1). */
export const startMockOpenAI = (options?: MockOptions): Promise<MockUpstream> => startMockServer(openaiFormat, options);
/** Anthropic Messages at `${baseUrl}/messages` (baseUrl ends in /v1). */
export const startMockAnthropic = (options?: MockOptions): Promise<MockUpstream> =>
  startMockServer(anthropicFormat, options);
/** Gemini at `${baseUrl}/models/{model}:generateContent` / `:streamGenerateContent?alt=sse` (baseUrl ends in /v1beta). */
export const startMockGemini = (options?: MockOptions): Promise<MockUpstream> => startMockServer(geminiFormat, options);
/** OpenAI Responses at `${baseUrl}/responses` (baseUrl ends in /v1). */
export const startMockResponses = (options?: MockOptions): Promise<MockUpstream> =>
  startMockServer(responsesFormat, options);
/**
 * Everything a coding agent's provider may speak, on one port: Anthropic Messages, OpenAI chat
 * completions and OpenAI Responses under `${baseUrl}` (ends in /v1). A scenario function sees
 * `request.path` to tell them apart.
 */
export const startMockAgentUpstream = (options?: MockOptions): Promise<MockUpstream> =>
  startMockServer([anthropicFormat, openaiFormat, responsesFormat], options);
