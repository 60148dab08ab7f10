import type { FastifyRequest } from 'fastify';
import { ConsoleError } from '../console-error.js';

/**
 * Console permissions, from most to least: `admin` (bootstrap tokens; may also manage console
 * tokens), `write` (every other write route), `read` (GET only; refused on write methods by the
 * authentication hook). Token management is admin-only so a leaked write token cannot mint
 * itself a longer-lived successor.
 */
export function requireAdmin(request: FastifyRequest, what = 'Managing console tokens'): void {
  if (request.consoleToken.permission !== 'admin') {
    throw new ConsoleError('forbidden', `${what} needs an admin token.`);
  }
}
