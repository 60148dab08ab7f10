import type { FastifyRequest } from 'fastify';
import { ConsoleError } from '../console-error.js';

/**
 * Console permissions, from most to least: `admin` (bootstrap tokens; may also manage console
 * tokens), `write` (every other write route), `read` (GET only; refused on write methods by the
 * authentication hook). Token management is admin-only so a leaked write token cannot mint
 * itself a longer-lived successor.
 */
export function requireAdmin(request: FastifyRequest): void {
  if (request.consoleToken.permission !== 'admin') {
    throw new ConsoleError('forbidden', 'Managing console tokens needs an admin token.');
  }
}
