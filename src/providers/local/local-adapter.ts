import type { ChatRequest } from '../../canonical/chat-request.js';
import {
  UpstreamError,
  type AbortSignalLike,
  type CallOptions,
  type ProviderAdapter,
  type UpstreamTarget,
} from '../types.js';
import type { ProviderCompletion, ProviderStreamEvent } from '../../canonical/completion.js';
import { splitIntoChunks } from './build-reply.js';
import { answerLocally, type LocalAnswer } from './local-answer.js';

/** Computes the echo model's answer for a request and model. */
export type LocalAnswerer = (request: ChatRequest, model: string) => Promise<LocalAnswer>;

let answer: LocalAnswerer = (request, model) => Promise.resolve(answerLocally(request, model));

/**
 * Process-wide, set once at start-up (wiring/start.ts) to the offload pool's answerer, which runs
 * big requests on a thread: offload/ runs this folder's CPU work, so this floor may not import it.
 * Until then (unit tests, a process that never starts the wiring) the answer is computed inline.
 */
export function answerLocalRequestsWith(answerer: LocalAnswerer): void {
  answer = answerer;
}

function throwIfAborted(signal: AbortSignalLike): void {
  if (signal.aborted)
    throw new UpstreamError('local request aborted', { status: null, retryable: false, kind: 'aborted' });
}

async function complete(
  request: ChatRequest,
  target: UpstreamTarget,
  options: CallOptions,
): Promise<ProviderCompletion> {
  throwIfAborted(options.signal);
  const { id, reply, usage } = await answer(request, target.upstreamModel);
  return {
    upstreamId: id,
    upstreamModel: target.upstreamModel,
    message: { role: 'assistant', content: reply.content, ...(reply.toolCalls ? { tool_calls: reply.toolCalls } : {}) },
    finishReason: reply.finishReason,
    usage,
  };
}

async function* replay(
  target: UpstreamTarget,
  { id, reply, usage }: LocalAnswer,
  signal: AbortSignalLike,
): AsyncGenerator<ProviderStreamEvent> {
  yield { type: 'meta', upstreamId: id, upstreamModel: target.upstreamModel };
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
  yield { type: 'usage', usage };
}

/** The offline `local/echo` model: no network, deterministic, real token counts. */
export const localAdapter: ProviderAdapter = {
  kind: 'local',
  complete,
  async stream(request, target, options) {
    throwIfAborted(options.signal);
    return replay(target, await answer(request, target.upstreamModel), options.signal);
  },
};
