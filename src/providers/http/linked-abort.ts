/**
 * An AbortController that follows the caller's signal but can also be fired on its own (when the
 * consumer of a stream stops early). `dispose` drops the listener so long-lived caller signals
 * do not accumulate one listener per upstream call.
 */
export interface LinkedAbort {
  readonly signal: AbortSignal;
  abort(reason?: unknown): void;
  dispose(): void;
}

export function linkAbort(parent: AbortSignal): LinkedAbort {
  const controller = new AbortController();
  const onAbort = (): void => controller.abort(parent.reason);
  if (parent.aborted) controller.abort(parent.reason);
  else parent.addEventListener('abort', onAbort, { once: true });
  return {
    signal: controller.signal,
    abort: (reason) => controller.abort(reason),
    dispose: () => parent.removeEventListener('abort', onAbort),
  };
}
