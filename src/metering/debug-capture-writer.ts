import type { Logger } from 'pino';
import type { Store } from '../store/database.js';
import { insertDebugCapture, type NewDebugCapture } from '../store/debug-captures.js';
import { debugCaptures } from '../metrics/debug-capture-metrics.js';
import { capText, redactHeaders, redactKeyLike, type CappedText, type ClippedText } from './capture-redaction.js';

/** One upstream attempt as it left: the target, and the request the adapter built for it. */
export interface CapturedAttempt {
  providerId: string;
  upstreamModel: string;
  url: string;
  headers: Readonly<Record<string, string>>;
  body: ClippedText;
  startedAt: number;
}

/** A request of a key in debug capture, as the call core recorded it (src/pipeline/debug-capture.ts); nothing redacted yet. */
export interface CapturedRequest {
  organizationId: string;
  apiKeyId: string;
  requestId: string;
  createdAt: number;
  endpoint: string;
  model: string | null;
  statusCode: number;
  errorCode: string | null;
  received: { headers: Readonly<Record<string, string | string[] | undefined>>; body: ClippedText };
  upstream: readonly CapturedAttempt[];
  /** `json`: the answer's body; `stream`: the events as the client got them; `none`: no answer body reached the core. */
  answer: { kind: 'json' | 'stream' | 'none'; body: ClippedText };
}

/** Where the call core hands its captures: never blocks, never throws. */
export interface DebugCaptureSink {
  /** The cap of each part: the core stops accumulating an answer past it. */
  readonly maxPartBytes: number;
  /** Queues `capture` for writing; false when the queue was full and it was dropped (counted). */
  offer(capture: CapturedRequest): boolean;
}

/** Upstream attempts kept with their request; later ones (a long retry chain) are counted, not kept. */
export const MAX_ATTEMPTS_KEPT = 8;

const part = (capped: CappedText) =>
  capped.truncatedFrom === undefined
    ? { text: capped.text }
    : { text: capped.text, truncated_from_bytes: capped.truncatedFrom };

/** A capture as its row stores it: every part redacted (docs/debug-capture.md, "Redaction"), then cut to `maxPartBytes`. */
export function captureRow(capture: CapturedRequest, maxPartBytes: number): NewDebugCapture {
  const cap = (clipped: ClippedText) => part(capText(redactKeyLike(clipped.text), maxPartBytes, clipped.wholeBytes));
  const received = { headers: redactHeaders(capture.received.headers), body: cap(capture.received.body) };
  const upstream = {
    attempts: capture.upstream.slice(0, MAX_ATTEMPTS_KEPT).map((attempt) => ({
      provider: attempt.providerId,
      upstream_model: attempt.upstreamModel,
      url: redactKeyLike(attempt.url),
      started_at: new Date(attempt.startedAt).toISOString(),
      headers: redactHeaders(attempt.headers),
      body: cap(attempt.body),
    })),
    attempts_not_kept: Math.max(0, capture.upstream.length - MAX_ATTEMPTS_KEPT),
  };
  const answer = {
    kind: capture.answer.kind,
    status_code: capture.statusCode,
    error_code: capture.errorCode,
    body: cap(capture.answer.body),
  };
  return {
    organizationId: capture.organizationId,
    apiKeyId: capture.apiKeyId,
    requestId: capture.requestId,
    createdAt: capture.createdAt,
    endpoint: capture.endpoint,
    model: capture.model,
    statusCode: capture.statusCode,
    received: JSON.stringify(received),
    upstream: JSON.stringify(upstream),
    answer: JSON.stringify(answer),
  };
}

/**
 * Writes captures off the request path: a bounded queue drained one row at a time, each redacted
 * and capped here, after its answer left. A full queue drops the new capture and counts it
 * (`gateway_debug_captures_total{outcome="dropped"}`); a failed write is logged and counted, and
 * the request it belonged to is long answered either way.
 */
export class DebugCaptureWriter implements DebugCaptureSink {
  private readonly queue: CapturedRequest[] = [];
  private draining: Promise<void> | undefined;
  /** Captures dropped because the queue was full, since start. */
  dropped = 0;

  constructor(
    private readonly store: Store,
    private readonly logger: Logger,
    private readonly options: { queueSize: number; maxPartBytes: number; maxPerKey: number },
  ) {}

  get maxPartBytes(): number {
    return this.options.maxPartBytes;
  }

  get queued(): number {
    return this.queue.length;
  }

  offer(capture: CapturedRequest): boolean {
    if (this.queue.length >= this.options.queueSize) {
      this.dropped++;
      debugCaptures.inc({ outcome: 'dropped' });
      return false;
    }
    this.queue.push(capture);
    this.draining ??= this.drain().finally(() => (this.draining = undefined));
    return true;
  }

  /** Resolves once every queued capture is written (or failed). */
  async flush(): Promise<void> {
    while (this.draining) await this.draining;
  }

  private async drain(): Promise<void> {
    // A turn first: the answer's last bytes leave before any capture work starts.
    await new Promise<void>((resolve) => setImmediate(resolve));
    for (let capture = this.queue.shift(); capture; capture = this.queue.shift()) {
      try {
        await insertDebugCapture(this.store, captureRow(capture, this.options.maxPartBytes), this.options.maxPerKey);
        debugCaptures.inc({ outcome: 'stored' });
      } catch (error) {
        debugCaptures.inc({ outcome: 'failed' });
        this.logger.warn({ err: error, requestId: capture.requestId }, 'could not store a debug capture');
      }
    }
  }
}
