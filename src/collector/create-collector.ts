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

/** How long a stopping gateway lets in-flight webhook deliveries finish before releasing them. */
const WORKER_STOP_GRACE_MS = 5_000;

export interface Collector {
  settings: CollectorSettings;
  console: ConsoleCollectorServices;
  app: CollectorServices;
  worker: DeliveryWorker;
  start(): void;
  stop(): Promise<void>;
}

/** Wires the collector: repositories, the Host directory, group-commit intake and the outbox worker. */
export function createCollector(
  store: Store,
  logger: Logger,
  env: NodeJS.ProcessEnv,
  domains: DomainSettings = readDomainSettings(env),
): Collector {
  const settings = readCollectorSettings(env);
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
  );
  const intake = new EventIntake(events, logger, () => worker.wake());
  return {
    settings,
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
    app: { directory, intake },
    worker,
    start: () => {
      if (settings.workerEnabled) worker.start();
    },
    stop: async () => {
      await intake.drain();
      await worker.stop(WORKER_STOP_GRACE_MS);
      await webhook.close();
    },
  };
}
