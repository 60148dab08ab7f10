import type { Logger } from 'pino';

/**
 * A promise rejected with nobody listening is a bug, but one stray rejection (a database call
 * whose connection was reset at the wrong moment) must not end every other request and stream
 * the process is serving: it is logged with its stack, counted by the log level, and the process
 * keeps serving. Thrown exceptions are not caught here: after one, the process state is unknown.
 */
export function logUnhandledRejections(logger: Logger): () => void {
  const onRejection = (reason: unknown) => {
    logger.error({ err: reason }, 'unhandled promise rejection: a bug; the process keeps serving');
  };
  process.on('unhandledRejection', onRejection);
  return () => process.off('unhandledRejection', onRejection);
}
