import type { Bundle } from '../bundles.js';
import type { Conversation, ToolResult } from '../types.js';

export interface StrategyContext {
  bundle: Bundle;
  /** Results of turns before this index are "old": masking and older-copy elision apply. */
  frozenBefore: number;
  stripLineNumbers: boolean;
}

export interface Strategy {
  readonly name: string;
  /** Rewrites `text` of results or tool definitions in place; returns whether anything changed. */
  run(conversation: Conversation, ctx: StrategyContext): boolean;
}

/** Results a strategy may still rewrite. */
export function open(result: ToolResult): boolean {
  return result.editable;
}

export function replace(result: ToolResult, text: string, strategy: string): boolean {
  if (text === result.text) return false;
  result.text = text;
  result.changedBy.add(strategy);
  return true;
}
