import {
  decide,
  DEFAULT_RETRY,
  nativeCallWithFallback,
  nativeStreamWithFallback,
  RoutingError,
  type NativeAnswer,
  type NativeEvent,
  type NativeEventStream,
} from '../providers/index.js';
import type { TokenUsage } from '../canonical/completion.js';
import type { Call } from './call.js';
import { ZERO_USAGE } from './meter.js';
import { applyCompression } from './apply-compression.js';
import type { NativePlan, TranslatedPlan } from './plan.js';
import type { UpstreamStream } from './single-call.js';

/**
 * Native pass-through: when the model's first upstream accepts the endpoint's wire format (its
 * adapter declares it), the client's own body goes upstream (model replaced, gateway members
 * removed, compressed in its own form) and the answer comes back as the upstream wrote it.
 * Admission and settlement are the core's as on every path; only the body and the answer skip
 * translation. These functions only call upstream: answering, failing and settling are `serve`'s.
 *
 * Routing: retries and fallback run natively across the plan's targets (the leading ones that
 * accept the format). When all of them fail before the first byte with an error another
 * provider might not have (retryable, 401/403/404, malformed), `translatedFallback` plans the
 * remaining targets through the translated path, exactly as a translated request would have
 * been; a final error (400, 413, 422, client gone) is final, as on the translated path.
 */

/** The native answer in one piece. */
export async function nativeJson(call: Call, plan: NativePlan): Promise<NativeAnswer> {
  const { native } = plan;
  const answer = (await call.route((options) => nativeCallWithFallback(native, plan.targets, options))).result;
  call.storedAnswerId = () => answer.storedId;
  return answer;
}

/** The native stream, resolved once the upstream answered. */
export async function nativeStream(call: Call, plan: NativePlan): Promise<UpstreamStream<NativeEvent>> {
  const { native } = plan;
  const upstream = (await call.route((options) => nativeStreamWithFallback(native, plan.targets, options))).result;
  call.storedAnswerId = upstream.storedId;
  const providerId = call.providerId;
  return {
    source: upstream.events,
    usage: () => streamUsage(call, upstream),
    failure: (error) => call.upstreamFailure(error, providerId),
  };
}

/**
 * The plan that takes over when the native targets failed with `error`: the remaining targets,
 * sent the canonical request compressed in its own form. Undefined when the failure is final.
 */
export async function translatedFallback(
  call: Call,
  plan: NativePlan,
  error: unknown,
): Promise<TranslatedPlan | undefined> {
  if (plan.fallback.length === 0 || call.clientGone || !(error instanceof RoutingError)) return undefined;
  const maxAttempts = Math.max(1, call.services.upstream.retry?.maxAttempts ?? DEFAULT_RETRY.maxAttempts);
  if (decide(error.lastError, maxAttempts, maxAttempts) === 'fail') return undefined;
  const { body, compression } = await applyCompression(
    call.request,
    plan.body,
    call.admission.model,
    call.services.compression,
  );
  return {
    native: undefined,
    targets: plan.fallback,
    body,
    compression,
    path: { member: plan.path.member, value: 'translated_fallback' },
  };
}

/** A native stream's usage; when it was cut short, what the upstream said so far and our count of what was produced. */
function streamUsage(call: Call, upstream: NativeEventStream): TokenUsage {
  const known = upstream.usage();
  if (known && upstream.complete()) return known;
  const base = known ?? { ...ZERO_USAGE, inputTokens: call.admission.promptEstimate };
  const produced = call.estimateUsage(0, upstream.producedText()).outputTokens;
  return { ...base, outputTokens: Math.max(base.outputTokens, produced) };
}
