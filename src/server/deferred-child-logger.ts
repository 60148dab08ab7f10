import type { FastifyBaseLogger } from 'fastify';
import type { Bindings, ChildLoggerOptions, LogFn } from 'pino';

const LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

/**
 * Fastify gives every request its own child logger, and pino's `child` serialises the bindings
 * and rebuilds every level method; with request logging off, almost no request ever logs. This
 * stands in for that child and creates it on first use, with the same bindings (the request id).
 */
export class DeferredChildLogger {
  declare fatal: LogFn;
  declare error: LogFn;
  declare warn: LogFn;
  declare info: LogFn;
  declare debug: LogFn;
  declare trace: LogFn;
  declare silent: LogFn;
  private created: FastifyBaseLogger | undefined;

  constructor(
    private readonly parent: FastifyBaseLogger,
    private readonly bindings: Bindings,
    private readonly options: ChildLoggerOptions,
  ) {}

  get logger(): FastifyBaseLogger {
    return (this.created ??= this.parent.child(this.bindings, this.options));
  }

  get level(): string {
    return this.created?.level ?? this.options.level ?? this.parent.level;
  }

  set level(level: string) {
    this.logger.level = level;
  }

  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return this.logger.child(bindings, options);
  }
}

for (const level of LEVELS) {
  Object.defineProperty(DeferredChildLogger.prototype, level, {
    value: function (this: DeferredChildLogger, ...args: unknown[]): void {
      const logger = this.logger;
      (logger[level] as (...args: unknown[]) => void).apply(logger, args);
    },
  });
}

/** Fastify's `childLoggerFactory`. */
export function deferredChildLogger(
  logger: FastifyBaseLogger,
  bindings: Bindings,
  options: ChildLoggerOptions,
): FastifyBaseLogger {
  return new DeferredChildLogger(logger, bindings, options) as unknown as FastifyBaseLogger;
}
