import type { FastifyInstance } from 'fastify';
import { offloadSettings, warmOffloadPool } from '../offload/index.js';

/**
 * A body big enough to be counted or compressed on a pool thread announces itself by its
 * Content-Length before it arrives: the thread is started then, so its start overlaps the upload
 * (the first 10 MB count after a start answered ~0.5 s later than the next ones, issue 16).
 * Registered after authentication: an unknown client starts no thread.
 */
export function registerOffloadWarmup(app: FastifyInstance): void {
  app.addHook('onRequest', (request, _reply, done) => {
    const length = request.headers['content-length'];
    if (length !== undefined && Number(length) >= offloadSettings().minChars) warmOffloadPool();
    done();
  });
}
