import pino, { type Logger } from 'pino';

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
    pino.destination({ fd: 2, sync: false }),
  );
}
