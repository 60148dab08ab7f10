import type { FastifyReply } from 'fastify';

/**
 * A signal that fires when the client goes away before its response finished: the response's
 * 'close' arrives without 'finish'. The upstream request listening to it is aborted at once.
 */
export function abortOnClientClose(reply: FastifyReply): AbortSignal {
  const controller = new AbortController();
  reply.raw.once('close', () => {
    if (!reply.raw.writableFinished) controller.abort();
  });
  return controller.signal;
}
