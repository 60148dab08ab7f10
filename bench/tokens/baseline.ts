import { get_encoding, type Tiktoken } from 'tiktoken';
import type { TokenizerName } from '../../src/tokenize/index.js';
import type { ChatRequestFixture } from './load-trajectories.js';

/**
 * A gateway without caching: plain tiktoken, every message of every request encoded afresh,
 * with the same chat accounting as countRequestTokens (3 per message + role + content, 3 per
 * tool call + name + arguments, 3 reply priming) so the totals must match exactly.
 */
export function createBaselineCounter(tokenizer: TokenizerName): (request: ChatRequestFixture) => number {
  const encoder: Tiktoken = get_encoding(tokenizer);
  const count = (text: string): number => encoder.encode_ordinary(text).length;
  return (request) => {
    let total = 3;
    for (const message of request.messages) {
      total += 3 + count(message.role);
      if (message.content) total += count(message.content);
      for (const call of (message.tool_calls ?? []) as { function: { name: string; arguments: string } }[]) {
        total += 3 + count(call.function.name) + count(call.function.arguments);
      }
    }
    return total;
  };
}
