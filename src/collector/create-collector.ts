import type { Logger } from 'pino';
import type { Store } from '../store/database.js';
import { ProjectRepository } from '../store/projects.js';
import { ProjectDomainRepository } from '../store/project-domains.js';
import { readDomainSettings, type DomainSettings } from '../config/domain-settings.js';
import { DomainVerifier } from '../console/domains/domain-verifier.js';
import { isLocalName } from '../console/domains/local-names.js';
import { ProxySettingsRepository } from '../store/proxy-settings.js';
import { ProjectComponentRepository } from '../store/project-components.js';
import { CollectedEventStore } from '../store/collected-events.js';
import { ComponentCatalogue } from '../console/components/component-catalogue.js';
import type { ConsoleCollectorServices } from '../console/routes/console-collector-services.js';
import { readCollectorSettings, type CollectorSettings } from './collector-settings.js';
import { ProjectDirectory } from './project-directory.js';
import { EventIntake } from './event-intake.js';
import { DeliveryWorker } from './delivery/delivery-worker.js';
import { WebhookDeliverer } from './delivery/webhook-deliverer.js';
import { WarehouseDeliverer } from './delivery/warehouse-deliverer.js';
import type { CollectorServices } from './app.js';
import { readCollectorLimitsSettings, type CollectorLimitsSettings } from '../config/collector-limits-settings.js';
import { CollectedEventRetention } from '../store/collected-events-retention.js';
import { RetentionSweeper } from './retention-sweeper.js';
import { CollectorRateLimits } from './limits/rate-limits.js';
import { RedisConnection } from '../limits/redis-connection.js';
import { trackSharedBudget } from '../metrics/collector-metrics.js';
import type { AlertRuleRepository } from '../store/alert-rules.js';
import type { AlertFiringRepository } from '../store/alert-firings.js';
import { AlertDeliverer } from './delivery/alert-deliverer.js';
import { WebhookPoster } from './delivery/webhook-post.js';

/** Alert rules and their firings: given, the outbox worker delivers fired alerts too (docs/alerts.md). */
export interface CollectorAlerts {
  rules: AlertRuleRepository;
  firings: AlertFiringRepository;
}

/** How long a stopping gateway lets in-flight webhook deliveries finish before releasing them. */
const WORKER_STOP_GRACE_MS = 5_000;

export interface Collector {
  settings: CollectorSettings;
  limits: CollectorLimitsSettings;
  console: ConsoleCollectorServices;
  app: CollectorServices;
  worker: DeliveryWorker;
  retention: RetentionSweeper;
  /** Whether the shared rate-limit store answers (a PING), when GATEWAY_REDIS_URL is set: a readiness check. */
  redisReachable: (() => Promise<unknown>) | undefined;
  start(): void;
  stop(): Promise<void>;
}

/**
 * Wires the collector: repositories, the Host directory, rate limits (Redis-shared when
 * configured), group-commit intake under the stored-event quota, the outbox worker and the
 * retention sweeper.
 */
export function createCollector(
  store: Store,
  logger: Logger,
  env: NodeJS.ProcessEnv,
  domains: DomainSettings = readDomainSettings(env),
  alerts?: CollectorAlerts,
): Collector {
  const settings = readCollectorSettings(env);
  const limits = readCollectorLimitsSettings(env);
  const development = domains.mode === 'development';
  // In development mode local names (localhost, *.test, …) are verified as soon as they are claimed.
  const projects = new ProjectRepository(store, development ? isLocalName : () => false);
  const projectComponents = new ProjectComponentRepository(store);
  const events = new CollectedEventStore(store);
  const catalogue = new ComponentCatalogue();
  const directory = new ProjectDirectory(projects, projectComponents, catalogue, settings.directoryTtlMs, {
    servePreverified: development,
  });
  const webhook = new WebhookDeliverer(
    events,
    { allowPrivate: settings.webhookAllowPrivate },
    settings.webhookTimeoutMs,
  );
  const alertPoster =
    alerts && new WebhookPoster({ allowPrivate: settings.webhookAllowPrivate }, settings.webhookTimeoutMs);
  const alertRoute = alerts && new AlertDeliverer(alerts.rules, alerts.firings, alertPoster!);
  const worker = new DeliveryWorker(
    events,
    projectComponents,
    catalogue,
    { webhook, warehouse: new WarehouseDeliverer(events) },
    {
      leaseMs: settings.leaseMs,
      pollMs: settings.pollMs,
      retryBaseMs: settings.retryBaseMs,
      retryMaxMs: settings.retryMaxMs,
      maxAttempts: settings.maxAttempts,
    },
    logger,
    alertRoute ? [alertRoute] : [],
  );
  const intake = new EventIntake(events, logger, () => worker.wake(), {
    events: limits.quotaEvents,
    bytes: limits.quotaBytes,
  });
  const redis = limits.redisUrl ? new RedisConnection(limits.redisUrl, limits.redisTimeoutMs, logger) : undefined;
  const untrackRedis = redis ? trackSharedBudget(redis) : () => undefined;
  const rateLimits = new CollectorRateLimits({
    address: limits.address,
    project: limits.project,
    burstWindowSeconds: limits.burstWindowSeconds,
    redis: redis && { client: redis.client, keyPrefix: limits.redisKeyPrefix },
  });
  const retention = new RetentionSweeper(
    new CollectedEventRetention(store),
    { retentionDays: limits.retentionDays, sweepMs: limits.retentionSweepMs, batch: limits.retentionBatch },
    logger,
  );
  return {
    settings,
    limits,
    console: {
      store,
      projects,
      projectDomains: new ProjectDomainRepository(store),
      domains,
      domainVerifier: new DomainVerifier(domains),
      proxySettings: new ProxySettingsRepository(store),
      projectComponents,
      events,
      catalogue,
      webhookTargets: { allowPrivate: settings.webhookAllowPrivate },
      projectChanged: () => directory.invalidate(),
    },
    app: {
      directory,
      intake,
      rateLimits,
      limits: {
        maxEventsPerRequest: limits.maxEventsPerRequest,
        maxEventBytes: limits.maxEventBytes,
        quotaRetryAfterSeconds: Math.max(1, Math.ceil(limits.retentionSweepMs / 1000)),
      },
    },
    worker,
    retention,
    redisReachable: redis && (() => redis.client.ping()),
    start: () => {
      if (settings.workerEnabled) worker.start();
      retention.start();
    },
    stop: async () => {
      await intake.drain();
      await Promise.all([worker.stop(WORKER_STOP_GRACE_MS), retention.stop()]);
      await webhook.close();
      await alertPoster?.close();
      untrackRedis();
      redis?.close();
    },
  };
}
