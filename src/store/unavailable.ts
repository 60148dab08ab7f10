/** PostgreSQL SQLSTATE classes and codes that mean "the database cannot serve now", not "this query is wrong". */
const PG_UNAVAILABLE = /^(08|57P0[1-3]|53300|57014|55P03|40P01)/;
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
]);

/**
 * True when a store call failed because the database is away, restarting, locked or overloaded
 * (a retry later may succeed), as opposed to a bug in a query.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string') {
    if (NETWORK_CODES.has(code)) return true;
    if (
      code.startsWith('SQLITE_BUSY') ||
      code.startsWith('SQLITE_LOCKED') ||
      code.startsWith('SQLITE_IOERR') ||
      code === 'SQLITE_FULL'
    )
      return true;
    if (/^[0-9A-Z]{5}$/.test(code) && PG_UNAVAILABLE.test(code)) return true;
  }
  // node-postgres reports a connection lost mid-query, or a pool that could not connect in time, without a code.
  return /^Connection terminated|^timeout exceeded when trying to connect|^Client has encountered a connection error/.test(
    error.message,
  );
}
