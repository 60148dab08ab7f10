import { createHash } from 'node:crypto';
import type { ChatRequest } from '../../canonical/chat-request.js';
import { countRequestTokens, countTextTokens, tokenizerForModel } from '../../tokenize/index.js';
import type { TokenUsage } from '../../canonical/completion.js';
import { buildLocalReply, type LocalReply } from './build-reply.js';

/** Everything the echo model answers, computed in one place so that it can run on a pool thread. */
export interface LocalAnswer {
  id: string;
  reply: LocalReply;
  usage: TokenUsage;
}

/**
 * The echo model's answer to `request`: the reply, its real token counts and a stable id. Pure
 * CPU work proportional to the request (it echoes and counts it): src/offload/ runs it on a pool
 * thread when the request is big.
 */
export function answerLocally(request: ChatRequest, model: string): LocalAnswer {
  const tokenizer = tokenizerForModel(model);
  const reply = buildLocalReply(request, tokenizer);
  const output =
    (reply.content ?? '') + (reply.toolCalls ? JSON.stringify(reply.toolCalls.map((c) => c.function)) : '');
  return {
    id: `local-${createHash('sha256').update(JSON.stringify(request.messages)).digest('hex').slice(0, 24)}`,
    reply,
    usage: {
      inputTokens: countRequestTokens({ messages: request.messages, tools: request.tools }, tokenizer),
      cachedInputTokens: 0,
      cacheCreationInputTokens: 0,
      outputTokens: output === '' ? 0 : countTextTokens(output, tokenizer),
      reasoningTokens: 0,
    },
  };
}
