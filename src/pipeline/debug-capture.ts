import type { FastifyReply, FastifyRequest } from 'fastify';
import type { UpstreamRequest, UpstreamTarget } from '../providers/index.js';
import {
  MAX_ATTEMPTS_KEPT,
  type CapturedAttempt,
  type CapturedRequest,
  type DebugCaptureSink,
} from '../metering/debug-capture-writer.js';
import { clipForQueue, type ClippedText } from '../metering/capture-redaction.js';

/** Whether `key` captures a request starting at `now`: on, and not yet past its time. */
export function capturing(key: { debugCaptureUntil?: number | null | undefined }, now: number): boolean {
  const until = key.debugCaptureUntil;
  return until !== null && until !== undefined && until > now;
}

/**
 * What one request of a key in debug capture leaves behind (docs/debug-capture.md): the body and
 * headers as received (serialised before admission, so compression's work on the body cannot show
 * through), each upstream request as its adapter built it, and the answer as it went to the client,
 * kept up to the sink's part cap. Handed to the sink when the response is closed, so nothing is
 * written before the client has its answer; redaction and serialisation happen in the writer.
 */
export class CaptureRecorder {
  private readonly attempts: CapturedAttempt[] = [];
  private readonly answerChunks: string[] = [];
  private answerChars = 0;
  private droppedBytes = 0;
  private answerKind: CapturedRequest['answer']['kind'] = 'none';
  private outcome: { status: number; errorCode: string | null } | undefined;
  private model: string | null = null;
  private offered = false;

  private constructor(
    private readonly sink: DebugCaptureSink,
    private readonly request: FastifyRequest,
    private readonly reply: FastifyReply,
    private readonly endpoint: string,
    private readonly createdAt: number,
    private readonly receivedBody: ClippedText,
  ) {}

  /** A recorder for `request` when its key is capturing and a sink is wired; else undefined (nothing is done). */
  static start(
    sink: DebugCaptureSink | undefined,
    request: FastifyRequest,
    reply: FastifyReply,
    endpoint: string,
  ): CaptureRecorder | undefined {
    const now = Date.now();
    if (!sink || !capturing(request.apiKey, now)) return undefined;
    let body: string;
    try {
      body = JSON.stringify(request.body) ?? '';
    } catch {
      body = '';
    }
    const recorder = new CaptureRecorder(sink, request, reply, endpoint, now, clipForQueue(body, sink.maxPartBytes));
    reply.raw.once('close', () => recorder.hand());
    return recorder;
  }

  /**
   * The `observeRequest` of the call's route options: one entry per upstream attempt, its body
   * clipped near the cap at once; past MAX_ATTEMPTS_KEPT only the attempt is counted (a long
   * tool loop does not hold every round's body).
   */
  readonly observeRequest = (upstream: UpstreamRequest, target: UpstreamTarget): void => {
    const kept = this.attempts.length < MAX_ATTEMPTS_KEPT;
    this.attempts.push({
      providerId: target.providerId,
      upstreamModel: target.upstreamModel,
      url: upstream.url,
      headers: kept ? upstream.headers : {},
      body: kept ? clipForQueue(upstream.body, this.sink.maxPartBytes) : { text: '' },
      startedAt: Date.now(),
    });
  };

  /** Text of the answer as it leaves: the whole JSON body, or one write of a stream's framed events. */
  answered(kind: 'json' | 'stream', text: string): void {
    this.answerKind = kind;
    if (!text) return;
    const room = this.sink.maxPartBytes - this.answerChars;
    // Kept by UTF-16 units (a cheap bound at or above the byte cap's share); the writer cuts to bytes.
    if (room <= 0) {
      this.droppedBytes += Buffer.byteLength(text);
      return;
    }
    const kept = text.length > room ? text.slice(0, room) : text;
    this.answerChunks.push(kept);
    this.answerChars += kept.length;
    if (kept !== text) this.droppedBytes += Buffer.byteLength(text) - Buffer.byteLength(kept);
  }

  /** How the request ended, as its usage row records it. */
  settled(status: number, errorCode: string | null, model: string | null): void {
    this.outcome ??= { status, errorCode };
    this.model ??= model;
  }

  private answerBody(): ClippedText {
    const text = this.answerChunks.join('');
    return this.droppedBytes > 0 ? { text, wholeBytes: Buffer.byteLength(text) + this.droppedBytes } : { text };
  }

  private hand(): void {
    if (this.offered) return;
    this.offered = true;
    const key = this.request.apiKey;
    // No settle: the request failed before its call opened (its error went out as the reply's status).
    const outcome = this.outcome ?? { status: this.reply.raw.statusCode, errorCode: null };
    this.sink.offer({
      organizationId: key.organizationId,
      apiKeyId: key.id,
      requestId: this.request.id,
      createdAt: this.createdAt,
      endpoint: this.endpoint,
      model: this.model,
      statusCode: outcome.status,
      errorCode: outcome.errorCode,
      received: { headers: this.request.headers, body: this.receivedBody },
      upstream: this.attempts,
      answer: { kind: this.answerKind, body: this.answerBody() },
    });
  }
}
