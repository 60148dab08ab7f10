import type { FastifyRequest } from 'fastify';
import type { CatalogueModel } from '../catalogue/catalogue.js';
import type { UpstreamTarget } from '../providers/index.js';
import type { Reservation } from '../limits/budget-ledger.js';
import {
  allowanceBounds,
  reserveOutputAllowance,
  withOutputCap,
  type AllowanceRequest,
} from '../limits/output-allowance.js';
import { countRequestTokensOffloaded, isBigInput } from '../offload/index.js';
import { countRequestTokens, tokenizerForModel, type TokenizerName } from '../tokenize/index.js';
import type { ChatRequest } from '../canonical/chat-request.js';
import type { CoreServices } from './services.js';
import { GatewayError } from './errors.js';
import { providerNotSupported, resolveModel } from './resolve-model.js';
import { headerFlag, mergeTags } from './request-tags.js';
import { validateChatRequest } from './validate-chat-request.js';
import { applyCompression, type AppliedCompression } from './apply-compression.js';
import { injectGatewayTools, planGatewayTools, type GatewayToolPlan } from './gateway-tool-plan.js';
import { canonicalForwarded, unseenPromptTokens, type ForwardedBody } from './unseen-prompt.js';

/** Everything decided before the first upstream byte: the request is allowed and paid for. */
export interface Admission {
  requestId: string;
  /** What goes upstream: the client's body, compressed when compression applies. */
  body: ChatRequest;
  compression: AppliedCompression | undefined;
  startedAt: number;
  model: CatalogueModel;
  targets: UpstreamTarget[];
  tags: string[];
  debug: boolean;
  tokenizer: TokenizerName;
  /**
   * Our count of the prompt; computed on first use (keys without a ceiling rarely need it). A big
   * prompt is counted on a pool thread from admission on (src/offload/), so that this synchronous
   * read finds it done; only a request that fails before that thread answers counts it inline.
   */
  readonly promptEstimate: number;
  maxOutputTokens: number;
  /** For a key with a ceiling: the output cap its reservation pays for, sent upstream (docs/budgets.md). */
  outputCapApplied: number | undefined;
  reservation: Reservation | undefined;
  /** Gateway tools injected into `body.tools`; absent when none (the plain single-call path). */
  gatewayTools?: GatewayToolPlan | undefined;
}

export interface AdmitOptions {
  /**
   * Asked once gateway tools are planned and the targets known: whether the canonical body is
   * compressed here (default: yes). The native `/v1/messages` pass-through answers no and
   * compresses the client's own Messages body instead (src/gateway/messages/native-anthropic.ts).
   */
  compressCanonical?: (context: {
    body: ChatRequest;
    plan: GatewayToolPlan | undefined;
    targets: UpstreamTarget[];
    model: CatalogueModel;
    /** Compression's conversation state, for a route that compresses its own body. */
    conversations: CoreServices['compression'];
  }) => boolean | Promise<boolean>;
  /**
   * Asked for a key with a ceiling when `compressCanonical` answered no: the body the route will
   * send upstream instead, what of it the canonical estimate counts, and the stored context it
   * makes the provider bill (src/pipeline/unseen-prompt.ts).
   */
  forwarded?: () => ForwardedBody | undefined;
}

/** Prompt estimates are ours, not the provider's tokenizer: leave headroom so a slightly higher real count still fits. */
const ESTIMATE_HEADROOM = 1.1;

export async function admit(
  services: CoreServices,
  request: FastifyRequest,
  original: ChatRequest,
  options: AdmitOptions = {},
): Promise<Admission> {
  const startedAt = Date.now();
  const key = request.apiKey;
  validateChatRequest(original);
  const model = resolveModel(services.catalogue, key, original.model);
  const targets = services.catalogue.targets(model);
  if (targets.length === 0) throw providerNotSupported(model);
  // Gateway tools are resolved before compression (a stored deferred turn is part of the history
  // to compress) and injected after it (their definitions are never rewritten).
  const planned = await planGatewayTools(services.gatewayTools, key, original);
  // Awaited only when the route asks (an `await` of nothing still costs a turn of the microtask queue).
  const asked = options.compressCanonical?.({
    body: planned.body,
    plan: planned.plan,
    targets,
    model,
    conversations: services.compression,
  });
  const compressCanonical = asked === undefined ? true : await asked;
  const compressed = compressCanonical
    ? await applyCompression(request, planned.body, model, services.compression)
    : { body: planned.body, compression: undefined };
  const compression = compressed.compression;
  const body = injectGatewayTools(compressed.body, planned.plan);
  const tags = mergeTags(body.tags, request.headers['x-gateway-tags']);
  const debug = body.enable_debug === true || headerFlag(request.headers['x-gateway-debug']) || key.debugMode;

  const admission = new AdmittedRequest(
    request.id,
    body,
    compression,
    startedAt,
    model,
    targets,
    tags,
    debug,
    tokenizerForModel(model.id),
    planned.plan,
  );
  let maxOutputTokens = Math.min(
    body.max_completion_tokens ?? body.max_tokens ?? model.maxOutputTokens,
    model.maxOutputTokens,
  );

  // Keys with a ceiling and debug answers need the count now; other big prompts get it counted
  // off the event loop in the background, for the paths that need it later (aborts, no usage).
  if (key.maxUsageUsd !== null || debug) await admission.countPrompt();
  else if (isBigInput(admission.body)) admission.countPrompt().catch(() => undefined);

  let reservation: Reservation | undefined;
  if (key.maxUsageUsd !== null) {
    // What goes upstream beyond the canonical count (forwarded members, stored context) is paid
    // for too, or the request is refused when nothing bounds it (docs/budgets.md).
    const forwarded =
      (compressCanonical ? undefined : options.forwarded?.()) ??
      canonicalForwarded(admission.body as unknown as Record<string, unknown>);
    let unseen: number;
    try {
      unseen = await unseenPromptTokens(services, key, forwarded, admission.tokenizer);
    } catch (error) {
      if (!(error instanceof GatewayError)) throw error;
      admission.maxOutputTokens = maxOutputTokens;
      throw new CeilingRefusal(admission, error);
    }
    // The output cap is what the key's room pays for (docs/budgets.md), sent upstream as the
    // request's max tokens, so the reservation covers the answer whatever its length.
    const allowance: AllowanceRequest = {
      pricing: model.pricing,
      promptTokens: Math.ceil((admission.promptEstimate + unseen) * ESTIMATE_HEADROOM),
      requestedOutputTokens: maxOutputTokens,
    };
    const granted = await reserveOutputAllowance(services.budget, key.id, key.maxUsageUsd * 1_000_000, allowance);
    if (granted) {
      reservation = granted.reservation;
      maxOutputTokens = granted.outputTokens;
      admission.body = withOutputCap(admission.body, maxOutputTokens);
      admission.outputCapApplied = maxOutputTokens;
    } else {
      const { minimumMicroUsd } = allowanceBounds(allowance);
      admission.maxOutputTokens = maxOutputTokens;
      throw new CeilingRefusal(
        admission,
        new GatewayError('usage_limit_exceeded', {
          message: `This request's prompt and a minimal answer could cost up to $${(minimumMicroUsd / 1e6).toFixed(6)}, more than is left under the key's monthly limit of $${key.maxUsageUsd}.`,
        }),
      );
    }
  }
  admission.maxOutputTokens = maxOutputTokens;
  admission.reservation = reservation;
  return admission;
}

/**
 * Thrown by `admit` when the key's ceiling leaves no room for the request. It is admitted as far
 * as metering needs (model, targets, tags) so that the call core settles it like any other
 * request: a usage row with zero tokens and cost and the refusal's status, so the export shows
 * who hit their limit and when (`openCall`). Requests refused earlier (a malformed body, an
 * unknown model) are client errors and are not metered.
 */
export class CeilingRefusal extends Error {
  constructor(
    readonly admission: Admission,
    readonly error: GatewayError,
  ) {
    super(error.message);
  }
}

/**
 * A class rather than an object literal: a literal with a getter is built through V8's slow
 * path on every request, and the prompt estimate is needed only by keys with a ceiling, aborts
 * and debug output.
 */
class AdmittedRequest implements Admission {
  maxOutputTokens = 0;
  outputCapApplied: number | undefined = undefined;
  reservation: Reservation | undefined = undefined;
  private estimate: number | undefined = undefined;
  private counting: Promise<number> | undefined = undefined;
  /** The estimate counts the body as admitted, even if a route replaces `body` afterwards. */
  private readonly admittedBody: ChatRequest;

  constructor(
    readonly requestId: string,
    public body: ChatRequest,
    public compression: AppliedCompression | undefined,
    readonly startedAt: number,
    readonly model: CatalogueModel,
    public targets: UpstreamTarget[],
    readonly tags: string[],
    readonly debug: boolean,
    readonly tokenizer: TokenizerName,
    readonly gatewayTools: GatewayToolPlan | undefined,
  ) {
    this.admittedBody = body;
  }

  get promptEstimate(): number {
    return (this.estimate ??= countRequestTokens(this.admittedBody, this.tokenizer));
  }

  /** Counts the prompt (on a pool thread when it is big) unless already counted or counting. */
  countPrompt(): Promise<number> {
    if (this.estimate !== undefined) return Promise.resolve(this.estimate);
    this.counting ??= countRequestTokensOffloaded(this.admittedBody, this.tokenizer).then((count) => {
      this.estimate ??= count;
      return count;
    });
    return this.counting;
  }
}
