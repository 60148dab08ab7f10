import type { FastifyReply } from 'fastify';
import type { AbortSignalLike } from '../providers/index.js';

/**
 * Fires when the client goes away before its response finished: the response's 'close' arrives
 * without 'finish'. The upstream request listening to it is aborted at once. A plain object
 * rather than an AbortController: one per request, and Node's AbortSignal costs several
 * microseconds to build and to add a listener to (see `asAbortSignal` where a real one is due).
 */
class ClientAbortSignal implements AbortSignalLike {
  aborted = false;
  reason: unknown = undefined;
  private listeners: Array<() => void> | undefined;

  addEventListener(_type: 'abort', listener: () => void): void {
    (this.listeners ??= []).push(listener);
  }

  removeEventListener(_type: 'abort', listener: () => void): void {
    const index = this.listeners?.indexOf(listener) ?? -1;
    if (index >= 0) this.listeners!.splice(index, 1);
  }

  abort(): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = new DOMException('The client closed the connection.', 'AbortError');
    const listeners = this.listeners ?? [];
    this.listeners = undefined;
    for (const listener of listeners) listener();
  }
}

export function abortOnClientClose(reply: FastifyReply): AbortSignalLike {
  const signal = new ClientAbortSignal();
  // A client that left during admission closed the response before this listener existed.
  if (reply.raw.closed && !reply.raw.writableFinished) {
    signal.abort();
    return signal;
  }
  // `on`, not `once`: a response closes once, and `once` costs a wrapper and a removal per request.
  reply.raw.on('close', () => {
    if (!reply.raw.writableFinished) signal.abort();
  });
  return signal;
}

/** A real AbortSignal that follows `signal`, for APIs that need one (gateway tools). */
export function asAbortSignal(signal: AbortSignalLike): AbortSignal {
  if (signal instanceof AbortSignal) return signal;
  const controller = new AbortController();
  if (signal.aborted) controller.abort(signal.reason);
  else signal.addEventListener('abort', () => controller.abort(signal.reason), { once: true });
  return controller.signal;
}
