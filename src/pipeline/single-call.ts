import { callWithFallback, streamWithFallback } from '../providers/index.js';
import type { ProviderCompletion, ProviderStreamEvent, TokenUsage } from '../canonical/completion.js';
import type { Call } from './call.js';
import type { TranslatedPlan } from './plan.js';
import { StreamAccumulator } from './stream-accumulator.js';

/**
 * An upstream stream as a strategy opened it, before the core relays it: its events, what the
 * request is charged once it is over (read once), and how its events are watched and its
 * failures named. `serve` relays it (`Call.relayEvents`), which settles the request once.
 */
export interface UpstreamStream<E> {
  source: AsyncIterable<E>;
  usage: () => TokenUsage;
  observe?: ((event: E) => void) | undefined;
  failure?: ((error: unknown) => unknown) | undefined;
}

/** One translated upstream call (retries and fallback inside). */
export async function singleJson(call: Call, plan: TranslatedPlan): Promise<ProviderCompletion> {
  return (await call.route((options) => callWithFallback(plan.body, plan.targets, options))).result;
}

/** Resolves once the upstream has answered, so a failure before that is still an ordinary error response. */
export async function singleStream(call: Call, plan: TranslatedPlan): Promise<UpstreamStream<ProviderStreamEvent>> {
  const upstream = (await call.route((options) => streamWithFallback(plan.body, plan.targets, options))).result;
  const providerId = call.providerId;
  const accumulator = new StreamAccumulator(call.keptText());
  return {
    source: upstream,
    usage: () => accumulator.usage ?? call.estimateUsage(call.admission.promptEstimate, accumulator.producedText()),
    observe: (event) => accumulator.add(event),
    // Whatever broke the upstream stream is the provider's failure as the client sees it.
    failure: (error) => call.upstreamFailure(error, providerId),
  };
}
