import type { MockScenario, MockUsage, RecordedRequest } from './types.js';

export const DEFAULT_TEXT = 'Hello from the mock.';

export function usageOf(scenario: MockScenario): MockUsage {
  return {
    inputTokens: 12,
    outputTokens: 5,
    cachedInputTokens: 0,
    cacheCreationInputTokens: 0,
    reasoningTokens: 0,
    ...scenario.usage,
  };
}

export function textOf(scenario: MockScenario): string {
  return scenario.textChunks ? scenario.textChunks.join('') : (scenario.text ?? DEFAULT_TEXT);
}

export function textChunksOf(scenario: MockScenario): string[] {
  if (scenario.textChunks) return scenario.textChunks;
  return textOf(scenario)
    .split(/(?<= )/)
    .filter((piece) => piece !== '');
}

export function finishOf(scenario: MockScenario): NonNullable<MockScenario['finishReason']> {
  return scenario.finishReason ?? (scenario.toolCalls?.length ? 'tool_calls' : 'stop');
}

/** The model a response names: the scenario's, else the one the request asked for. */
export function modelOf(scenario: MockScenario, request: RecordedRequest): string {
  return scenario.model ?? request.body?.model ?? 'mock-model';
}

/** Whether a response carries text: always without tool calls, and with them when text is set. */
export function wantsText(scenario: MockScenario): boolean {
  return !scenario.toolCalls?.length || scenario.text !== undefined;
}
