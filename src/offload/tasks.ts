import type { BundleName, EngineOptions, EngineResult } from '../compress/index.js';
import type { CompressJsonOutcome } from './compress-json.js';
import type { ChatRequest } from '../canonical/chat-request.js';
import type { LocalAnswer } from '../providers/local/local-answer.js';
import type { CountableRequest, TokenizerName } from '../tokenize/index.js';

/**
 * The work the pool's threads do (worker.ts), as plain data both sides share: every field
 * crosses the thread boundary by structured clone, so only JSON-like values travel.
 */
export type OffloadTask =
  | { kind: 'count-request'; body: CountableRequest; tokenizer: TokenizerName }
  | { kind: 'count-text'; text: string; tokenizer: TokenizerName }
  | { kind: 'compress'; body: unknown; options: EngineOptions }
  | { kind: 'compress-json'; segments: Uint8Array[]; maxDepth: number; bundle: BundleName | undefined }
  | { kind: 'local-answer'; request: ChatRequest; model: string }
  /** Nothing: starts a thread and loads its code ahead of a big input (pool.ts, warmOffloadPool). */
  | { kind: 'warm' };

export interface OffloadResults {
  'count-request': number;
  'count-text': number;
  compress: EngineResult;
  'compress-json': CompressJsonOutcome;
  'local-answer': LocalAnswer;
  warm: null;
}

/**
 * What a task answers: its value, or a client error the main thread turns back into the error
 * class it came from (an Error's class and extra fields do not survive the structured clone).
 */
export type OffloadAnswer<K extends OffloadTask['kind']> =
  | { ok: true; value: OffloadResults[K] }
  | { ok: false; error: { kind: 'compression-input'; message: string; param: string | null } };

/** What each thread is given as it starts (piscina's `workerData`). */
export interface OffloadWorkerData {
  /** Nice steps below the process the thread lowers itself by (thread-priority.ts). */
  nice: number;
}
