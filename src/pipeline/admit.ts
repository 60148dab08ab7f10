import type { FastifyRequest } from 'fastify';
import type { CatalogueModel } from '../catalogue/catalogue.js';
import { speaksNatively, type UpstreamTarget } from '../providers/index.js';
import type { Reservation } from '../limits/budget-ledger.js';
import {
  allowanceBounds,
  reserveAllowanceAgainst,
  withOutputCap,
  type AllowanceRequest,
} from '../limits/output-allowance.js';
import type { KeyLimits } from '../limits/key-limits.js';
import { countRequestTokensOffloaded, isBigInput } from '../offload/index.js';
import { countRequestTokens, tokenizerForModel, type TokenizerName } from '../tokenize/index.js';
import type { ChatRequest } from '../canonical/chat-request.js';
import type { CoreServices } from './services.js';
import { GatewayError } from './errors.js';
import { resolveModel } from './resolve-model.js';
import { organizationTargets } from './organization-targets.js';
import { headerFlag, mergeTags } from './request-tags.js';
import { validateChatRequest } from './validate-chat-request.js';
import { applyCompression, type AppliedCompression } from './apply-compression.js';
import { injectGatewayTools, planGatewayTools, type GatewayToolPlan } from './gateway-tool-plan.js';
import { canonicalForwarded, unseenPromptTokens } from './unseen-prompt.js';
import type { NativeOffer, NativePlan, Plan } from './plan.js';
import { rateRefusal, spendRefusal } from './limit-refusals.js';

/** Everything decided before the first upstream byte: the request is allowed and paid for, and how it is answered. */
export interface Admission {
  requestId: string;
  /** How the request is answered (targets, body, compression); immutable. */
  readonly plan: Plan;
  startedAt: number;
  /** Whether the client asked for a stream. */
  readonly stream: boolean;
  model: CatalogueModel;
  /** Every target of the model, in order (a plan serves all or some of them). */
  readonly targets: readonly UpstreamTarget[];
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
  /** Gateway tools injected into the canonical body's tools; absent when none (the plain single-call path). */
  gatewayTools?: GatewayToolPlan | undefined;
}

/** Prompt estimates are ours, not the provider's tokenizer: leave headroom so a slightly higher real count still fits. */
const ESTIMATE_HEADROOM = 1.1;

/**
 * Admits a request: model and targets, gateway tools, compression, tags, debug, and for a key with
 * a ceiling the reservation of what it may cost. With a native `offer` that the model's first
 * target accepts, the client's own body is compressed and planned instead of the canonical one.
 */
export async function admit(
  services: CoreServices,
  request: FastifyRequest,
  original: ChatRequest,
  offer?: NativeOffer,
): Promise<Admission> {
  const startedAt = Date.now();
  const key = request.apiKey;
  validateChatRequest(original);
  const model = resolveModel(services.catalogue, key, original.model);
  const targets = await organizationTargets(services, key, model);
  // Per-minute request rates (docs/limits.md): refused before any work, like the overload limit.
  const limits: KeyLimits | undefined = services.limits && (await services.limits.forKey(key));
  if (limits) {
    const refused = await services.limits!.takeRequest(limits);
    if (refused) throw rateRefusal(refused, 1);
  }
  // Gateway tools are resolved before compression (a stored deferred turn is part of the history
  // to compress) and injected after it (their definitions are never rewritten).
  const planned = await planGatewayTools(services.gatewayTools, key, original);
  const native = offer && goesNative(offer, planned.body, planned.plan, targets[0]!) ? offer : undefined;
  // What only the native path carries cannot be translated: refused before anything is reserved.
  if (offer?.untranslatable && !native) throw offer.untranslatable;
  let nativeBody: Record<string, unknown> | undefined;
  let compression: AppliedCompression | undefined;
  let body: ChatRequest;
  if (native) {
    const compressed = await applyCompression(
      request,
      native.body as unknown as ChatRequest,
      model,
      services.compression,
    );
    // Sent even when compression saved nothing: it may carry the gateway's cache hints.
    nativeBody = compressed.body as unknown as Record<string, unknown>;
    compression = compressed.compression;
    body = injectGatewayTools(planned.body, planned.plan);
  } else {
    const compressed = await applyCompression(request, planned.body, model, services.compression);
    compression = compressed.compression;
    body = injectGatewayTools(compressed.body, planned.plan);
  }
  const tags = mergeTags(body.tags, request.headers['x-gateway-tags']);
  const debug = body.enable_debug === true || headerFlag(request.headers['x-gateway-debug']) || key.debugMode;

  const admission = new AdmittedRequest(
    request.id,
    body,
    startedAt,
    original.stream === true,
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

  // The spend bounds of the request: the key's monthly ceiling and the windows of its limits.
  const now = services.limits?.clock.now() ?? Date.now();
  const windows = limits && limits.spend.length > 0 ? services.limits!.spendWindows(limits, now) : [];
  const bounded = key.maxUsageUsd !== null || windows.length > 0;
  const tokenRated = (limits?.tokens.length ?? 0) > 0;
  // Bounded keys, token rates and debug answers need the count now; other big prompts get it
  // counted off the event loop in the background, for the paths that need it later (aborts, no usage).
  if (bounded || tokenRated || debug) await admission.countPrompt();
  else if (isBigInput(body)) admission.countPrompt().catch(() => undefined);

  let reservation: Reservation | undefined;
  let unseen = 0;
  if (bounded) {
    // What goes upstream beyond the canonical count (forwarded members, stored context) is paid
    // for too, or the request is refused when nothing bounds it (docs/budgets.md).
    const forwarded =
      native && nativeBody
        ? { body: nativeBody, counted: native.counted, storedContext: native.storedContext(nativeBody) }
        : canonicalForwarded(body as unknown as Record<string, unknown>);
    try {
      unseen = await unseenPromptTokens(services, key, forwarded, admission.tokenizer);
    } catch (error) {
      if (!(error instanceof GatewayError)) throw error;
      admission.maxOutputTokens = maxOutputTokens;
      admission.plan = planOf(native, nativeBody, body, compression, targets);
      throw new CeilingRefusal(admission, error);
    }
    // The output cap is what the key's room pays for (docs/budgets.md), sent upstream as the
    // request's max tokens, so the reservation covers the answer whatever its length.
    const allowance: AllowanceRequest = {
      pricing: model.pricing,
      promptTokens: Math.ceil((admission.promptEstimate + unseen) * ESTIMATE_HEADROOM),
      requestedOutputTokens: maxOutputTokens,
    };
    const ceilingMicroUsd = key.maxUsageUsd === null ? null : key.maxUsageUsd * 1_000_000;
    const outcome = await reserveAllowanceAgainst(services.budget, key.id, { ceilingMicroUsd, windows }, allowance);
    const granted = outcome.allowance;
    if (granted) {
      reservation = granted.reservation;
      maxOutputTokens = granted.outputTokens;
      body = withOutputCap(body, maxOutputTokens);
      if (native && nativeBody) nativeBody = { ...nativeBody, [native.outputCapMember]: maxOutputTokens };
      admission.outputCapApplied = maxOutputTokens;
    } else {
      const { minimumMicroUsd } = allowanceBounds(allowance);
      admission.maxOutputTokens = maxOutputTokens;
      admission.plan = planOf(native, nativeBody, body, compression, targets);
      throw new CeilingRefusal(admission, spendRefusal(outcome.blockedBy, minimumMicroUsd, key.maxUsageUsd, now));
    }
  }
  admission.maxOutputTokens = maxOutputTokens;
  admission.reservation = reservation;
  admission.plan = planOf(native, nativeBody, body, compression, targets);
  if (tokenRated) {
    // Counted input and the output it may produce (docs/limits.md, "Rates"); a refusal settles
    // the reservation just taken at zero cost, with the refusal's usage row.
    const tokens = Math.ceil(admission.promptEstimate + unseen) + maxOutputTokens;
    const refused = await services.limits!.takeTokens(limits!, tokens);
    if (refused) throw new CeilingRefusal(admission, rateRefusal(refused, tokens));
  }
  return admission;
}

/** The plan of an admitted request: native when its offer goes native, else translated. */
function planOf(
  native: NativeOffer | undefined,
  nativeBody: Record<string, unknown> | undefined,
  body: ChatRequest,
  compression: AppliedCompression | undefined,
  targets: readonly UpstreamTarget[],
): Plan {
  if (native && nativeBody) return nativePlan(native, nativeBody, body, compression, targets);
  return { native: undefined, targets, body, compression, path: undefined };
}

/** Whether an offered native body goes upstream: no gateway tools or pending turn, and a first target that accepts its format. */
function goesNative(
  offer: NativeOffer,
  body: ChatRequest,
  tools: GatewayToolPlan | undefined,
  first: UpstreamTarget,
): boolean {
  return (tools?.tools.size ?? 0) === 0 && body.gateway_pending_id === undefined && speaksNatively(first, offer.format);
}

/** The native run: the leading targets that accept the format; the rest are a translated fallback's when the body translates. */
function nativePlan(
  offer: NativeOffer,
  nativeBody: Record<string, unknown>,
  body: ChatRequest,
  compression: AppliedCompression | undefined,
  targets: readonly UpstreamTarget[],
): NativePlan {
  let split = targets.findIndex((target) => !speaksNatively(target, offer.format));
  if (split < 0) split = targets.length;
  return {
    native: { format: offer.format, body: nativeBody, wireHeaders: offer.wireHeaders },
    targets: targets.slice(0, split),
    body,
    compression,
    path: { member: offer.debugMember, value: 'native' },
    fallback: offer.untranslatable ? [] : targets.slice(split),
  };
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
  /** Set once by `admit`, before the admission leaves it. */
  plan!: Plan;
  maxOutputTokens = 0;
  outputCapApplied: number | undefined = undefined;
  reservation: Reservation | undefined = undefined;
  private estimate: number | undefined = undefined;
  private counting: Promise<number> | undefined = undefined;
  constructor(
    readonly requestId: string,
    /** The estimate counts the canonical body as admitted (compressed, gateway tools in, before any output cap). */
    private readonly admittedBody: ChatRequest,
    readonly startedAt: number,
    readonly stream: boolean,
    readonly model: CatalogueModel,
    readonly targets: readonly UpstreamTarget[],
    readonly tags: string[],
    readonly debug: boolean,
    readonly tokenizer: TokenizerName,
    readonly gatewayTools: GatewayToolPlan | undefined,
  ) {}

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
