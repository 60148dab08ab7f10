// CPU-heavy work on big inputs, off the event loop (pool.ts); small inputs stay inline, where
// they cost less than the trip to a thread. Callers use these instead of the synchronous
// functions of tokenize/ and compress/ wherever the input comes from a client.
import {
  compressPayload,
  CompressionInputError,
  type BundleName,
  type CompressOptions,
  type CompressResult,
  type EngineOptions,
  type EngineResult,
} from '../compress/index.js';
import type { CompressJsonOutcome } from './compress-json.js';
import type { ChatRequest } from '../canonical/chat-request.js';
import { answerLocally, type LocalAnswer } from '../providers/local/local-answer.js';
import { countRequestTokens, countTextTokens, type CountableRequest, type TokenizerName } from '../tokenize/index.js';
import { offloadSettings, runOffloaded } from './pool.js';
import type { OffloadAnswer, OffloadTask } from './tasks.js';

export {
  configureOffload,
  closeOffloadPool,
  offloadSettings,
  OffloadQueueFull,
  OFFLOAD_DEFAULTS,
  offloadThreads,
  warmOffloadPool,
  type OffloadSettings,
} from './pool.js';

/**
 * Characters of text in a JSON-like value (strings and keys), counted up to `limit`: whether an
 * input is big enough to offload, for the price of a walk that stops as soon as it is.
 */
export function textChars(value: unknown, limit: number): number {
  let total = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0 && total < limit) {
    const item = stack.pop();
    if (typeof item === 'string') total += item.length;
    else if (Array.isArray(item)) for (const element of item) stack.push(element);
    else if (typeof item === 'object' && item !== null) {
      for (const [key, member] of Object.entries(item)) {
        total += key.length;
        stack.push(member);
      }
    }
  }
  return total;
}

/** Whether `value` holds enough text to be worth a pool thread (GATEWAY_OFFLOAD_MIN_CHARS). */
export function isBigInput(value: unknown): boolean {
  const { minChars } = offloadSettings();
  return textChars(value, minChars) >= minChars;
}

function valueOf<K extends OffloadTask['kind']>(
  answer: OffloadAnswer<K>,
): OffloadAnswer<K> extends { ok: true; value: infer V } ? V : never {
  if (answer.ok) return answer.value as never;
  throw new CompressionInputError(answer.error.message, answer.error.param);
}

/** countRequestTokens, on a pool thread when the body is big. */
export async function countRequestTokensOffloaded(body: CountableRequest, tokenizer: TokenizerName): Promise<number> {
  if (!isBigInput(body)) return countRequestTokens(body, tokenizer);
  return valueOf(await runOffloaded({ kind: 'count-request', body, tokenizer }));
}

/** countTextTokens, on a pool thread when the text is big. */
export async function countTextTokensOffloaded(text: string, tokenizer: TokenizerName): Promise<number> {
  if (text.length < offloadSettings().minChars) return countTextTokens(text, tokenizer);
  return valueOf(await runOffloaded({ kind: 'count-text', text, tokenizer }));
}

/** compressPayload, on a pool thread when the body is big; throws CompressionInputError either way. */
export async function compressPayloadOffloaded(body: unknown, options: CompressOptions): Promise<CompressResult> {
  if (!isBigInput(body)) return compressPayload(body, options);
  return valueOf(await runOffloaded({ kind: 'compress', body, options }));
}

/**
 * The conversation-aware engine (state and history passed in as data, compress/conversation-request.ts),
 * on a pool thread when the body holds GATEWAY_OFFLOAD_COMPRESS_MIN_CHARS of text or more.
 */
export async function compressConversationOffloaded(body: unknown, options: EngineOptions): Promise<EngineResult> {
  const { compressMinChars } = offloadSettings();
  if (textChars(body, compressMinChars) < compressMinChars) return compressPayload(body, options);
  return valueOf(await runOffloaded({ kind: 'compress', body, options }));
}

/**
 * /v1/compress from a body's bytes to the answer's bytes, always on a pool thread
 * (routes/compress.ts). The segments (src/server/body-segments.ts, each owning its memory) are
 * moved to the thread, not copied: they are empty here afterwards.
 */
export async function compressJsonBytesOffloaded(
  segments: Uint8Array[],
  maxDepth: number,
  bundle: BundleName | undefined,
): Promise<CompressJsonOutcome> {
  const buffers = segments.map((segment) => segment.buffer as ArrayBuffer);
  return valueOf(await runOffloaded({ kind: 'compress-json', segments, maxDepth, bundle }, buffers));
}

/** The echo model's answer (it echoes, truncates and counts), on a pool thread when the request is big. */
export async function localAnswerOffloaded(request: ChatRequest, model: string): Promise<LocalAnswer> {
  if (!isBigInput(request.messages)) return answerLocally(request, model);
  return valueOf(await runOffloaded({ kind: 'local-answer', request, model }));
}
