import type { FinishReason } from '../../canonical/completion.js';

const FILTERED = new Set(['SAFETY', 'RECITATION', 'BLOCKLIST', 'PROHIBITED_CONTENT', 'SPII', 'IMAGE_SAFETY']);

export function mapGeminiFinishReason(reason: string | undefined, hasFunctionCalls: boolean): FinishReason {
  if (reason === 'MAX_TOKENS') return 'length';
  if (reason !== undefined && FILTERED.has(reason)) return 'content_filter';
  // Gemini reports STOP after a function call; OpenAI clients expect tool_calls.
  return hasFunctionCalls ? 'tool_calls' : 'stop';
}
