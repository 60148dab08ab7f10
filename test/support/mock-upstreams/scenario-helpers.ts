import type { MockScenario, MockUsage } from './types.js';

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
