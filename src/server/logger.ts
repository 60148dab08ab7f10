import pino, { type Logger } from 'pino';

/**
 * Lines are written to stderr a few kilobytes at a time, and at least every LOG_FLUSH_MS: one
 * write per line (the access log writes one per request) cost a thread-pool round trip each,
 * ~7 % of the gateway's CPU per JSON request (bench/README.md, issue 29). pino flushes what is
 * buffered when the process exits, an uncaught exception included; a SIGKILL loses at most the
 * last LOG_FLUSH_MS of lines.
 */
const LOG_BUFFER_BYTES = 4096;
const LOG_FLUSH_MS = 100;
/**
 * What may wait for stderr: when nothing reads it (a stuck log collector, a full pipe), lines
 * past this are dropped instead of growing the heap until the process dies.
 */
export const LOG_MAX_BUFFERED_BYTES = 8 * 1024 * 1024;

/**
 * Logs go to stderr as JSON lines; stdout carries only the machine-readable lines that
 * commands promise (the `listening` line, bootstrap output). Credentials are redacted even
 * if a future log call passes headers.
 */
export function createLogger(level: string): Logger {
  return pino(
    {
      level,
      base: { pid: process.pid },
      redact: {
        paths: [
          'req.headers.authorization',
          'req.headers["x-api-key"]',
          'headers.authorization',
          'headers["x-api-key"]',
          '*.apiKey',
          '*.key',
          '*.secret',
        ],
        censor: '[redacted]',
      },
    },
    pino.destination({
      fd: 2,
      sync: false,
      minLength: LOG_BUFFER_BYTES,
      maxLength: LOG_MAX_BUFFERED_BYTES,
      periodicFlush: LOG_FLUSH_MS,
    }),
  );
}
