import { callWithFallback, streamWithFallback } from '../providers/index.js';
import type { ProviderCompletion, ProviderStreamEvent, TokenUsage } from '../canonical/completion.js';
import type { Call } from './call.js';
import { ZERO_USAGE } from './meter.js';
import { StreamAccumulator } from './stream-accumulator.js';

/** A translated answer in one piece: the provider-neutral completion and the gateway members to add. */
export interface CanonicalAnswer {
  native: false;
  completion: ProviderCompletion;
  extras: Record<string, unknown>;
}

/** A translated stream: provider-neutral events, already metered by the core as they are consumed. */
export interface CanonicalStream {
  native: false;
  /** Iterate to the end, or stop early (the upstream is then aborted and the request metered as 499). */
  events: AsyncIterable<ProviderStreamEvent>;
  /** Valid once `events` has ended: the usage that was metered. */
  usage(): TokenUsage;
  /** Valid once `events` has ended: the gateway members of the final event (compression, debug, …). */
  extras(): Record<string, unknown>;
  /**
   * With gateway tools: `gateway_tools_executed` and `gateway_pending_id`, valid from the moment
   * the finish event is yielded (the chat codec puts them on the finish chunk too).
   */
  gatewayExtras?: () => Record<string, unknown>;
}

/** One translated upstream call (retries and fallback inside), settled by the core. */
export async function singleJson(call: Call): Promise<CanonicalAnswer> {
  const { admission } = call;
  let completion: ProviderCompletion;
  try {
    completion = (await call.route((options) => callWithFallback(admission.body, admission.targets, options))).result;
  } catch (error) {
    throw call.fail(error, false, call.unansweredUsage);
  }
  call.answered(completion.usage);
  return { native: false, completion, extras: call.extras() };
}

/** Resolves once the upstream has answered, so a failure before that is still an ordinary error response. */
export async function singleStream(call: Call): Promise<CanonicalStream> {
  const { admission } = call;
  let upstream: AsyncIterable<ProviderStreamEvent>;
  try {
    upstream = (await call.route((options) => streamWithFallback(admission.body, admission.targets, options))).result;
  } catch (error) {
    throw call.fail(error, true, call.unansweredUsage);
  }
  const providerId = call.providerId;
  const accumulator = new StreamAccumulator(call.keptText());
  let finalUsage: TokenUsage = ZERO_USAGE;
  const events = call.relayEvents(
    upstream,
    () => (finalUsage = accumulator.usage ?? call.estimateUsage(admission.promptEstimate, accumulator.producedText())),
    {
      observe: (event) => accumulator.add(event),
      // Whatever broke the upstream stream is the provider's failure as the client sees it.
      failure: (error) => call.upstreamFailure(error, providerId),
    },
  );
  return { native: false, events, usage: () => finalUsage, extras: () => call.extras() };
}
