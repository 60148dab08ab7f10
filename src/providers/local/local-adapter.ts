import { createHash } from 'node:crypto';
import type { ChatRequest } from '../../canonical/chat-request.js';
import { countRequestTokens, countTextTokens, tokenizerForModel } from '../../tokenize/index.js';
import {
  UpstreamError,
  type AbortSignalLike,
  type CallOptions,
  type ProviderAdapter,
  type UpstreamTarget,
} from '../types.js';
import { type ProviderCompletion, type ProviderStreamEvent, type TokenUsage } from '../../canonical/completion.js';
import { buildLocalReply, splitIntoChunks, type LocalReply } from './build-reply.js';

function throwIfAborted(signal: AbortSignalLike): void {
  if (signal.aborted)
    throw new UpstreamError('local request aborted', { status: null, retryable: false, kind: 'aborted' });
}

function usageOf(request: ChatRequest, reply: LocalReply, model: string): TokenUsage {
  const tokenizer = tokenizerForModel(model);
  const output =
    (reply.content ?? '') + (reply.toolCalls ? JSON.stringify(reply.toolCalls.map((c) => c.function)) : '');
  return {
    inputTokens: countRequestTokens({ messages: request.messages, tools: request.tools }, tokenizer),
    cachedInputTokens: 0,
    cacheCreationInputTokens: 0,
    outputTokens: output === '' ? 0 : countTextTokens(output, tokenizer),
    reasoningTokens: 0,
  };
}

function responseId(request: ChatRequest): string {
  return `local-${createHash('sha256').update(JSON.stringify(request.messages)).digest('hex').slice(0, 24)}`;
}

function complete(request: ChatRequest, target: UpstreamTarget, options: CallOptions): Promise<ProviderCompletion> {
  throwIfAborted(options.signal);
  const reply = buildLocalReply(request, tokenizerForModel(target.upstreamModel));
  return Promise.resolve({
    upstreamId: responseId(request),
    upstreamModel: target.upstreamModel,
    message: { role: 'assistant', content: reply.content, ...(reply.toolCalls ? { tool_calls: reply.toolCalls } : {}) },
    finishReason: reply.finishReason,
    usage: usageOf(request, reply, target.upstreamModel),
  });
}

async function* replay(
  request: ChatRequest,
  target: UpstreamTarget,
  reply: LocalReply,
  signal: AbortSignalLike,
): AsyncGenerator<ProviderStreamEvent> {
  yield { type: 'meta', upstreamId: responseId(request), upstreamModel: target.upstreamModel };
  for (const piece of splitIntoChunks(reply.content ?? '')) {
    // A macrotask between chunks makes the stream interleave like a real one (and abortable).
    await new Promise((resolve) => setImmediate(resolve));
    throwIfAborted(signal);
    yield { type: 'delta', content: piece };
  }
  for (const [index, call] of (reply.toolCalls ?? []).entries()) {
    yield {
      type: 'delta',
      toolCalls: [
        {
          index,
          id: call.id,
          type: 'function',
          function: { name: call.function.name, arguments: call.function.arguments },
        },
      ],
    };
  }
  yield { type: 'finish', finishReason: reply.finishReason };
  yield { type: 'usage', usage: usageOf(request, reply, target.upstreamModel) };
}

/** The offline `local/echo` model: no network, deterministic, real token counts. */
export const localAdapter: ProviderAdapter = {
  kind: 'local',
  complete,
  stream(request, target, options) {
    try {
      throwIfAborted(options.signal);
      const reply = buildLocalReply(request, tokenizerForModel(target.upstreamModel));
      return Promise.resolve(replay(request, target, reply, options.signal));
    } catch (err) {
      return Promise.reject(err);
    }
  },
};
