import { finishOf, textChunksOf, textOf, usageOf } from './scenario-helpers.js';
import type { MockScenario, MockWireFormat } from './types.js';

const FINISH = { stop: 'STOP', length: 'MAX_TOKENS', tool_calls: 'STOP', content_filter: 'SAFETY' } as const;

function usageMetadata(scenario: MockScenario) {
  const u = usageOf(scenario);
  return {
    promptTokenCount: u.inputTokens,
    candidatesTokenCount: u.outputTokens - u.reasoningTokens,
    ...(u.reasoningTokens ? { thoughtsTokenCount: u.reasoningTokens } : {}),
    ...(u.cachedInputTokens ? { cachedContentTokenCount: u.cachedInputTokens } : {}),
    totalTokenCount: u.inputTokens + u.outputTokens,
  };
}

const functionCalls = (scenario: MockScenario) =>
  (scenario.toolCalls ?? []).map((call) => ({ functionCall: { name: call.name, args: call.arguments ?? {} } }));
const wantsText = (scenario: MockScenario): boolean => !scenario.toolCalls?.length || scenario.text !== undefined;
const modelVersion = (scenario: MockScenario): string => scenario.model ?? 'gemini-mock-001';

export const geminiFormat: MockWireFormat = {
  name: 'gemini',
  basePath: '/v1beta',
  acceptsPath: (path) => /^\/v1beta\/models\/[^/:]+:(generateContent|streamGenerateContent\?alt=sse)$/.test(path),
  isStream: (request) => request.path.includes(':streamGenerateContent'),
  apiKeyOf: (request) => request.headers['x-goog-api-key'] as string | undefined,
  // What Gemini really answers for a bad key: 400, not 401.
  authError: () => ({
    status: 400,
    body: {
      error: {
        code: 400,
        message: 'API key not valid. Please pass a valid API key.',
        status: 'INVALID_ARGUMENT',
        details: [
          { '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'API_KEY_INVALID', domain: 'googleapis.com' },
        ],
      },
    },
  }),
  errorBody: (status, message) => ({
    error: {
      code: status,
      message,
      status: status === 429 ? 'RESOURCE_EXHAUSTED' : status >= 500 ? 'UNAVAILABLE' : 'INVALID_ARGUMENT',
    },
  }),
  json(scenario) {
    return {
      candidates: [
        {
          content: {
            role: 'model',
            parts: [...(wantsText(scenario) ? [{ text: textOf(scenario) }] : []), ...functionCalls(scenario)],
          },
          finishReason: FINISH[finishOf(scenario)],
          index: 0,
        },
      ],
      usageMetadata: usageMetadata(scenario),
      modelVersion: modelVersion(scenario),
      responseId: 'gemini-mock-response',
    };
  },
  streamEvents(scenario) {
    const base = { modelVersion: modelVersion(scenario), responseId: 'gemini-mock-response' };
    const u = usageOf(scenario);
    const events: Array<{ event?: string; data: unknown }> = [];
    const pieces = wantsText(scenario) ? textChunksOf(scenario) : [];
    for (const piece of pieces) {
      events.push({
        data: {
          candidates: [{ content: { role: 'model', parts: [{ text: piece }] }, index: 0 }],
          usageMetadata: { promptTokenCount: u.inputTokens, totalTokenCount: u.inputTokens },
          ...base,
        },
      });
    }
    events.push({
      data: {
        candidates: [
          {
            content: { role: 'model', parts: functionCalls(scenario) },
            finishReason: FINISH[finishOf(scenario)],
            index: 0,
          },
        ],
        usageMetadata: usageMetadata(scenario),
        ...base,
      },
    });
    return events;
  },
};
