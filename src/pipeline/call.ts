import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  batchesOf,
  KeptText,
  RoutingError,
  UpstreamError,
  type AbortSignalLike,
  type Attempt,
  type RouteOptions,
  type Routed,
} from '../providers/index.js';
import type { TokenUsage } from '../canonical/completion.js';
import type { ChatRequest } from '../canonical/chat-request.js';
import type { ApiKey } from '../store/api-keys.js';
import { countTextTokens } from '../tokenize/index.js';
import type { CoreServices } from './services.js';
import { GatewayError, databaseUnavailableError } from './errors.js';
import { admit, CeilingRefusal, type Admission } from './admit.js';
import type { NativeOffer, Plan } from './plan.js';
import { alsoBeforeAnswerEnds, meter, ZERO_USAGE } from './meter.js';
import { toProviderGatewayError } from './provider-error.js';
import { abortOnClientClose } from './client-abort.js';
import { formatCompression } from './apply-compression.js';
import { recordTrace } from './trace.js';
import { ANSWERED, CLIENT_CLOSED, RelayedEvents } from './relayed-events.js';
import { CaptureRecorder } from './debug-capture.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The caller's key, set by the gateway's authentication hook before the body is read. */
    apiKey: ApiKey;
  }
}

export { CLIENT_CLOSED_REQUEST } from './relayed-events.js';

/** How a request ended, as its usage row records it. */
export interface Outcome {
  status: number;
  errorCode: string | null;
  usage: TokenUsage;
  /** Refused at admission: no model was called, so no upstream latency is recorded. */
  refused?: boolean;
}

/** What a failed request is charged: `Call.charge`, or the gateway-tool loop's. */
export interface Charge {
  charge(clientGone: boolean): TokenUsage;
}

/**
 * Admits a request and opens its call: the one entry of the core for every endpoint. Admission
 * (key, model, gateway tools, compression, ceiling reservation, tags, debug; the plan) happens
 * here, and the abort signal that follows the client connection is created here. A request its
 * key's ceiling refuses is settled here, through the same `Call.settle`, before its error is
 * thrown. A call that opens is answered by `serve` (src/pipeline/serve.ts), which settles it.
 */
export async function openCall(
  services: CoreServices,
  request: FastifyRequest,
  reply: FastifyReply,
  endpoint: string,
  body: ChatRequest,
  offer?: NativeOffer,
): Promise<Call> {
  // Before admission: the body as received, not as compression leaves it.
  const capture = CaptureRecorder.start(services.debugCaptures, request, reply, endpoint);
  let admission: Admission;
  try {
    admission = await admit(services, request, body, offer);
  } catch (error) {
    if (!(error instanceof CeilingRefusal)) {
      if (error instanceof GatewayError) capture?.settled(error.status, error.code, null);
      throw error;
    }
    throw new Call(services, request, reply, error.admission, endpoint, capture).refused(error.error);
  }
  return new Call(services, request, reply, admission, endpoint, capture);
}

/**
 * One admitted request on its way through the core, whatever the endpoint and however many
 * upstream calls it takes. This is the only place a request is settled (one usage row, the
 * reservation settled, the trace recorded: `settle`), the only place a failure is turned into
 * what the client gets and metered (`fail`), and the only place a stream's end, failure or
 * abandonment by its client is metered (`relayEvents`); `serve` is the only caller of each.
 */
export class Call implements Charge {
  /** Every upstream attempt of the request, in order: retries, fallbacks, tool-loop rounds. */
  readonly attempts: Attempt[] = [];
  /** Aborted when the client goes away; stops the upstream at once. */
  readonly signal: AbortSignalLike;
  /** The provider that answered, or the last one tried. */
  providerId: string;
  upstreamModel: string;
  /**
   * The plan being served: admission's, or the translated plan a native fallback built. Plans are
   * never edited; only `serve` replaces this one.
   */
  plan: Plan;
  private settled = false;
  /** The model's first target (a fallback plan serves later ones). */
  private readonly first: { providerId: string; upstreamModel: string };
  /** Set when the consumer of a stream failed (a codec bug): the request is then settled with this error, not 499. */
  private consumerError: GatewayError | undefined;
  /**
   * Set by a native route whose provider keeps the answer as context for a later request (OpenAI
   * Responses with `store` on): the id it keeps it under, once known (docs/budgets.md, "Stored context").
   */
  storedAnswerId: (() => string | undefined) | undefined;
  /** The text the request keeps of its streamed answers, bounded; released when it is settled. */
  private kept: KeptText | undefined;

  constructor(
    readonly services: CoreServices,
    readonly request: FastifyRequest,
    readonly reply: FastifyReply,
    readonly admission: Admission,
    readonly endpoint: string,
    /** Set when the key is in debug capture: what the request received, sent upstream and answered. */
    readonly capture?: CaptureRecorder,
  ) {
    this.signal = abortOnClientClose(reply);
    this.plan = admission.plan;
    const first = admission.targets[0]!;
    this.first = first;
    this.providerId = first.providerId;
    this.upstreamModel = first.upstreamModel;
  }

  get clientGone(): boolean {
    return this.signal.aborted;
  }

  /** Whether the request is settled (its usage row written). */
  get isSettled(): boolean {
    return this.settled;
  }

  /** What the request's stream accumulators count their text in (upstream answer bounds, docs/configuration.md). */
  keptText(): KeptText {
    return (this.kept ??= new KeptText());
  }

  routeOptions(): RouteOptions {
    const { timeouts, retry } = this.services.upstream;
    const observeRequest = this.capture?.observeRequest;
    return observeRequest
      ? { signal: this.signal, timeouts, retry, observeRequest }
      : { signal: this.signal, timeouts, retry };
  }

  /** One routed upstream exchange (retries, fallback); its attempts join the request's. */
  async route<T>(run: (options: RouteOptions) => Promise<Routed<T>>): Promise<Routed<T>> {
    try {
      const routed = await run(this.routeOptions());
      this.attempts.push(...routed.attempts);
      this.providerId = routed.target.providerId;
      this.upstreamModel = routed.target.upstreamModel;
      return routed;
    } catch (error) {
      if (error instanceof RoutingError) {
        this.attempts.push(...error.attempts);
        // The provider whose answer (or silence) ended the routing, not necessarily the first one.
        const last = error.attempts.at(-1);
        if (last) {
          this.providerId = last.providerId;
          this.upstreamModel = last.upstreamModel;
        }
      }
      throw error;
    }
  }

  /**
   * Ends the request on the ledger, exactly once whatever happens: one usage row, committed
   * with the key's spend and the settled reservation; then its trace, when tracing is on.
   */
  settle(outcome: Outcome, stream: boolean): void {
    if (this.settled) return;
    this.settled = true;
    this.kept?.release();
    const { admission } = this;
    const { compression } = this.plan;
    // Members listed one by one: spreading `outcome` into a new object is V8's slow generic copy.
    const cost = meter(this.services, this.request, admission, compression, {
      status: outcome.status,
      errorCode: outcome.errorCode,
      usage: outcome.usage,
      provider: this.providerId,
      upstreamModel: this.upstreamModel,
      stream,
      endpoint: this.endpoint,
      refused: outcome.refused === true,
      uncompressedInputTokens: compression ? outcome.usage.inputTokens + compression.savedTokens : null,
    });
    if (outcome.status === 200) this.recordStoredContext(outcome.usage);
    this.capture?.settled(outcome.status, outcome.errorCode, admission.model.id);
    if (this.services.tracing?.enabled) recordTrace(this.services.tracing, this, outcome, stream, cost);
  }

  /**
   * Records what an answer the provider stores leaves in its context (its input and its output:
   * what a request continuing it is billed again), before the answer's last bytes leave, so a
   * client that continues it at once is estimated with it (src/pipeline/unseen-prompt.ts).
   */
  private recordStoredContext(usage: TokenUsage): void {
    const responseId = this.storedAnswerId?.();
    const stored = this.services.storedResponses;
    if (!responseId || !stored) return;
    const key = this.request.apiKey;
    const recorded = stored
      .record(key.organizationId, key.id, responseId, usage.inputTokens + usage.outputTokens)
      .catch((error: unknown) =>
        this.services.logger.warn(
          { err: error, requestId: this.admission.requestId },
          'could not record the stored context of a response',
        ),
      );
    alsoBeforeAnswerEnds(this.request, recorded);
  }

  /**
   * What the client gets for `error`, which ended the request: a gateway error as it is, an
   * upstream failure as the provider error it maps to, anything else as an internal error,
   * logged with its stack. Never metered here.
   */
  toClientError(error: unknown): GatewayError {
    if (error instanceof GatewayError) return error;
    if (error instanceof UpstreamError) return toProviderGatewayError(error, this.providerId);
    const unavailable = databaseUnavailableError(error);
    this.services.logger.error({ err: error, requestId: this.admission.requestId }, 'request failed');
    return unavailable ?? new GatewayError('internal_error');
  }

  /**
   * What broke an upstream stream, as the client sees it: the provider's failure. One that is
   * not an upstream error (an adapter's or codec's bug) is logged with its stack first.
   */
  upstreamFailure(error: unknown, providerId: string): GatewayError {
    if (error instanceof GatewayError) return error;
    if (!(error instanceof UpstreamError))
      this.services.logger.error({ err: error, requestId: this.admission.requestId }, 'upstream stream failed');
    return toProviderGatewayError(error, providerId);
  }

  /**
   * Settles a request that ended in an error outside a stream (before the first answer, or
   * between the tool loop's calls) and returns what the client gets. `usage` is what it is
   * charged: a client that left may be charged the prompt the provider may have processed;
   * an upstream failure is charged nothing beyond the calls that answered.
   */
  fail(error: unknown, stream: boolean, charged: Charge): GatewayError {
    const clientError = this.toClientError(error);
    const clientGone = this.clientGone;
    this.settle(
      clientGone
        ? { ...CLIENT_CLOSED, usage: charged.charge(true) }
        : { status: clientError.status, errorCode: clientError.code, usage: charged.charge(false) },
      stream,
    );
    return clientError;
  }

  /** The charge of a request that never got an answer: its estimated prompt when the client left, else nothing. */
  charge(clientGone: boolean): TokenUsage {
    return clientGone ? { ...ZERO_USAGE, inputTokens: this.admission.promptEstimate } : ZERO_USAGE;
  }

  /** Settles a request refused at admission for its key's ceiling (zero usage, nothing sent upstream); returns `error`. */
  refused(error: GatewayError): GatewayError {
    this.settle(
      { status: error.status, errorCode: error.code, usage: ZERO_USAGE, refused: true },
      this.admission.stream,
    );
    return error;
  }

  /** Settles a request answered in one piece (JSON). */
  answered(usage: TokenUsage): void {
    this.settle({ ...ANSWERED, usage }, false);
  }

  /**
   * Relays an upstream event stream and settles the request when it ends: 200 when it ran to
   * its end; the failure's status when it broke (the error thrown is the client's error); 499
   * when the client left, or the consumer stopped reading (it stops when its client left; the
   * upstream is aborted by then). `usage` is read once the stream is over. `observe` sees every
   * event as it is read; `failure` turns what broke the source into the error the client gets
   * (e.g. `upstreamFailure`). Read a batch at a time (EventBatches), or iterated.
   */
  relayEvents<E>(
    source: AsyncIterable<E>,
    usage: () => TokenUsage,
    options: { observe?: (event: E) => void; failure?: (error: unknown) => unknown } = {},
  ): RelayedEvents<E> {
    return new RelayedEvents(this, batchesOf(source), usage, options.observe, options.failure);
  }

  /** Settles a stream relayed by `relayEvents`: at its end, its failure, or when its consumer stopped reading. */
  settleStream(outcome: { status: number; errorCode: string | null } | undefined, usage: TokenUsage): void {
    const consumerError = this.consumerError;
    outcome ??= consumerError ? { status: consumerError.status, errorCode: consumerError.code } : CLIENT_CLOSED;
    this.settle({ status: outcome.status, errorCode: outcome.errorCode, usage }, true);
  }

  /** The consumer of `relayEvents` failed while handling an event: it stops iterating, and the request is settled with this error. */
  consumerFailed(error: unknown): GatewayError {
    this.consumerError = this.toClientError(error);
    return this.consumerError;
  }

  /** Our counts for a call that ended without usage (aborted, or the provider sent none). */
  estimateUsage(promptTokens: number, producedText: string): TokenUsage {
    return {
      ...ZERO_USAGE,
      inputTokens: promptTokens,
      outputTokens: producedText ? countTextTokens(producedText, this.admission.tokenizer) : 0,
    };
  }

  /** Whether the target that answered is not the model's first: retries on the first one do not count. */
  get fallbackUsed(): boolean {
    return this.providerId !== this.first.providerId || this.upstreamModel !== this.first.upstreamModel;
  }

  /**
   * Response headers of an answer (docs/wire-contract.md): who answered (`X-Gateway-Provider`),
   * `X-Gateway-Fallback-Used: 1` when a fallback did (absent otherwise: the public OpenAPI
   * document's enum is ["1"]), and for a key with a ceiling the output cap sent upstream
   * (`X-Gateway-Max-Tokens-Applied`, docs/budgets.md).
   */
  answerHeaders(): Record<string, string> {
    return this.addAnswerHeaders({});
  }

  /** Adds the answer's headers (`answerHeaders`) to `headers` and returns it. */
  addAnswerHeaders<H extends Record<string, unknown>>(headers: H): H {
    const added = headers as Record<string, unknown>;
    added['x-gateway-provider'] = this.providerId;
    if (this.fallbackUsed) added['x-gateway-fallback-used'] = '1';
    const cap = this.admission.outputCapApplied;
    if (cap !== undefined) added['x-gateway-max-tokens-applied'] = String(cap);
    return headers;
  }

  /** The gateway members of a response: compression, debug. */
  extras(): Record<string, unknown> {
    const { admission, plan } = this;
    const extra: Record<string, unknown> = {};
    if (plan.compression) extra.compression = formatCompression(plan.compression);
    if (admission.debug) {
      const debug: Record<string, unknown> = {
        request_id: admission.requestId,
        provider: this.providerId,
        upstream_model: this.upstreamModel,
        attempts: this.attempts.map((a) => ({
          provider: a.providerId,
          upstream_model: a.upstreamModel,
          status: a.status,
          error: a.error ?? null,
          duration_ms: a.durationMs,
        })),
        prompt_tokens_estimate: admission.promptEstimate,
        tags: admission.tags,
        timings: { total_ms: Date.now() - admission.startedAt },
      };
      if (plan.path) debug[plan.path.member] = plan.path.value;
      extra.debug = debug;
    }
    return extra;
  }
}
