import { compressPayload, CompressionInputError } from '../compress/index.js';
import { Piscina } from 'piscina';
import { compressJsonBytes } from './compress-json.js';
import { answerLocally } from '../providers/local/local-answer.js';
import { countRequestTokens, countTextTokens } from '../tokenize/index.js';
import { lowerThreadPriority } from './thread-priority.js';
import type { OffloadAnswer, OffloadTask, OffloadWorkerData } from './tasks.js';

// Once per thread, as piscina loads this file in it: below the event loop for the CPU.
lowerThreadPriority((Piscina.workerData as OffloadWorkerData | undefined)?.nice ?? 0);

/**
 * Entry point of the pool's threads (pool.ts): one task in, its answer out. Each thread keeps
 * its own merge ranks and token caches, loaded on its first task.
 */
/** `answer`, with `bytes`' memory moved to the main thread instead of copied (piscina's protocol). */
function movingBytes<T extends object>(answer: T, bytes: Uint8Array): T {
  return Piscina.move({
    [Piscina.transferableSymbol]: bytes.buffer,
    [Piscina.valueSymbol]: answer,
  } as never) as unknown as T;
}

export default function runTask(task: OffloadTask): OffloadAnswer<OffloadTask['kind']> {
  switch (task.kind) {
    case 'count-request':
      return { ok: true, value: countRequestTokens(task.body, task.tokenizer) };
    case 'count-text':
      return { ok: true, value: countTextTokens(task.text, task.tokenizer) };
    case 'compress-json': {
      const value = compressJsonBytes(task.segments, task.maxDepth, task.bundle);
      return value.ok ? movingBytes({ ok: true, value }, value.json) : { ok: true, value };
    }
    case 'local-answer':
      return { ok: true, value: answerLocally(task.request, task.model) };
    case 'warm':
      return { ok: true, value: null };
    case 'compress':
      try {
        return { ok: true, value: compressPayload(task.body, task.options) };
      } catch (error) {
        if (!(error instanceof CompressionInputError)) throw error;
        return { ok: false, error: { kind: 'compression-input', message: error.message, param: error.param } };
      }
  }
}
