import { readSettings } from '../config/settings.js';
import { createLogger } from '../server/logger.js';
import { startGateway } from '../wiring/start.js';
import { logUnhandledRejections } from '../server/process-guards.js';
import { preloadEncoders, TOKENIZERS } from '../tokenize/index.js';
import { releaseYoungGeneration } from './startup-heap.js';

/** `gateway serve`: prints one `listening` JSON line when all three listeners are up; SIGTERM drains. */
export async function serve(): Promise<void> {
  const settings = readSettings();
  const logger = createLogger(settings.logLevel);
  logUnhandledRejections(logger);
  // Opt-in: before listening, so no request ever waits for a vocabulary to load, at the price of
  // ~35 MB that a gateway which never counts tokens does not need (docs/decisions.md).
  if (settings.preloadTokenizers) preloadEncoders(TOKENIZERS);
  const running = await startGateway(settings, logger);
  releaseYoungGeneration();
  process.stdout.write(JSON.stringify({ event: 'listening', ...running.urls }) + '\n');

  const shutdown = (signal: string) => {
    logger.info({ signal }, 'draining');
    running.stop().then(
      () => {
        logger.info('stopped');
        logger.flush?.();
        setImmediate(() => process.exit(0));
      },
      (error) => {
        logger.error({ err: error }, 'shutdown failed');
        logger.flush?.();
        setImmediate(() => process.exit(1));
      },
    );
  };
  // Re-reads the config file, provider key files, master keys and certificate; this process only
  // (the console's POST /v1/admin/reload reaches every instance). Failures are logged by the reload.
  process.on('SIGHUP', () => void running.reload('SIGHUP'));
  process.once('SIGTERM', () => shutdown('SIGTERM'));
  process.once('SIGINT', () => shutdown('SIGINT'));
}
