import type { FinishReason } from '../../canonical/completion.js';

const KNOWN: ReadonlySet<string> = new Set(['stop', 'length', 'tool_calls', 'content_filter', 'function_call']);

/** Compatible servers invent values ("eos", "end_turn"); anything unknown is a normal stop. */
export function mapOpenAIFinishReason(reason: string | null | undefined): FinishReason {
  return reason && KNOWN.has(reason) ? (reason as FinishReason) : 'stop';
}
