import type { Bundle } from '../bundles.js';
import type { Conversation } from '../types.js';
import type { TokenizerName } from '../../tokenize/index.js';

export interface StrategyContext {
  bundle: Bundle;
  stripLineNumbers: boolean;
  /** Run only these strategies (benchmarks measure each one alone); undefined: all. */
  only: readonly string[] | undefined;
  /** The request's tokenizer: a first-sight rewrite is kept only if it saves tokens by its count. */
  tokenizer: TokenizerName;
}

export interface Strategy {
  readonly name: string;
  /** Rewrites tool definitions in place; returns whether anything changed. */
  run(conversation: Conversation, ctx: StrategyContext): boolean;
}
