import type { Logger } from 'pino';
import type { FastifyInstance } from 'fastify';
import type { Server as TlsServer } from 'node:tls';
import { readSettings, type Settings } from '../config/settings.js';
import { SURFACE_NAMES, type SurfaceName } from '../config/surface-settings.js';
import { openStore, pendingMigrations, type Store } from '../store/database.js';
import { loadMasterKeys, masterKeySource } from '../secrets/master-key.js';
import { Keyring } from '../secrets/keyring.js';
import { ApiKeyRepository } from '../store/api-keys.js';
import { KeyAuthenticator } from '../gateway/auth/key-authenticator.js';
import { createOrganizationAccess } from './organization-access.js';
import { buildGatewayApp } from '../gateway/app.js';
import { UsageWriter } from '../metering/usage-writer.js';
import { BudgetLedger } from '../limits/budget-ledger.js';
import type { LimitClock } from '../limits/limit-clock.js';
import { createSpendLimits } from './spend-limits.js';
import { StoredResponses } from '../store/stored-responses.js';
import { createGatewayToolsService } from '../gateway-tools/service.js';
import { answerLocalRequestsWith, bufferedUpstreamBytes, configureUpstreamLimits } from '../providers/index.js';
import { createLogger } from '../server/logger.js';
import { loadTls, tlsOptionsOf, type TlsMaterial } from '../server/tls.js';
import { Surface } from '../server/surface.js';
import { buildMetricsApp } from '../server/metrics-app.js';
import { trackUsageQueue } from '../metrics/metrics.js';
import { trackBufferedUpstreamBytes, trackQueuedHandshakes } from '../metrics/capacity-metrics.js';
import { fitConnectionCap, openFilesLimit } from '../config/connection-settings.js';
import { configureOffload, localAnswerOffloaded } from '../offload/index.js';
import { AddressPenalties } from '../server/address-penalties.js';
import { ConnectionGate } from '../server/connection-gate.js';
import { HandshakePacer } from '../server/handshake-pacer.js';
import { ClientPenalties } from '../server/client-penalties.js';
import { trustedProxyMatcher } from '../server/trusted-proxies.js';
import { CompressionConversations } from '../store/compression-conversations.js';
import { readTelemetrySettings } from '../config/telemetry-settings.js';
import { createTracing } from '../telemetry/tracing.js';
import { RefusalRetention } from '../metering/refusal-retention.js';
import { DebugCaptureRetention } from '../metering/debug-capture-retention.js';
import { DebugCaptureWriter } from '../metering/debug-capture-writer.js';
import { Readiness, type ReadinessCheck } from '../server/readiness.js';
import { LiveConfig } from '../server/live-config.js';
import { TlsReloader } from '../server/tls-reloader.js';
import { Reloader, type ReloadReport } from '../server/reloader.js';
import { ReloadBroadcast } from '../server/reload-broadcast.js';
import type { AlertEvaluator } from '../limits/alerts/alert-evaluator.js';
import { createAlerts } from './alerts.js';

export interface RunningGateway {
  /**
   * The URL of each surface. Only served surfaces (`GATEWAY_SURFACES`) are enumerable; reading
   * another one throws, so a caller cannot mistake an unserved surface for an empty address.
   */
  urls: Record<SurfaceName, string> & { metrics?: string };
  /** The Fastify app of each listener (route and OpenAPI tests), with the same rule as `urls`. */
  apps: Record<SurfaceName, FastifyInstance>;
  served: ReadonlySet<SurfaceName>;
  store: Store;
  /** Alert rules evaluated after usage settles; `evaluateAlerts` takes the windowed limits a request touched. */
  alerts: AlertEvaluator;
  /** The clock limit windows are read on (tests move it to the next window: docs/limits.md). */
  limitClock: LimitClock;
  /** Re-reads the config file, provider key files, master keys and certificate (SIGHUP: this instance only). */
  reload(trigger: string): Promise<ReloadReport>;
  stop(): Promise<void>;
}

const LAST_USED_FLUSH_MS = 5_000;
const DRAIN_GRACE_MS = 30_000;

/** Builds every part from the settings and starts the three listeners. */
export async function startGateway(
  settings: Settings = readSettings(),
  logger: Logger = createLogger(settings.logLevel),
  env: NodeJS.ProcessEnv = process.env,
): Promise<RunningGateway> {
  // Process-wide: the pool is created on first use with these (threads, queue) and keeps them.
  configureOffload(settings.offload);
  answerLocalRequestsWith(localAnswerOffloaded);
  configureUpstreamLimits(settings.upstreamLimits);
  const live = new LiveConfig(settings.configFile, env);
  // Off unless an OTLP endpoint is configured; then the SDK is loaded and each request traced.
  const tracing = await createTracing(readTelemetrySettings(env), logger);
  const tlsOptions = tlsOptionsOf(settings);
  const tls = await loadTls(tlsOptions);
  const store = await openStore({
    dataDir: settings.dataDir,
    databaseUrl: settings.databaseUrl,
    schema: settings.databaseSchema,
    backgroundCheckpoints: true,
    onCheckpointError: (message) =>
      logger.warn({ error: message }, 'a background SQLite checkpoint failed; the next one tries again'),
    // Message and code only: pg attaches the client (connection parameters included) to the error.
    onConnectionError: (error) =>
      logger.warn(
        { error: error.message, code: (error as NodeJS.ErrnoException).code },
        'an idle database connection failed; it will be replaced',
      ),
  });
  const keySource = masterKeySource(settings);
  const keyring = new Keyring(loadMasterKeys(keySource));
  const apiKeys = new ApiKeyRepository(store, keyring);
  const authenticator = new KeyAuthenticator(apiKeys, settings.keyCacheTtlMs);
  const organizationAccess = createOrganizationAccess(store, keyring, logger);
  const usage = new UsageWriter(store, logger);
  const untrackGauges = [trackUsageQueue(usage), trackBufferedUpstreamBytes(bufferedUpstreamBytes)];
  const spendLimits = createSpendLimits(store, settings, env, logger);
  const { clock: limitClock, directory: limits } = spendLimits;
  const budget = new BudgetLedger(store, logger, () => limitClock.now(), {
    reservationTtlMs: settings.reservationTtlMs,
    sweepIntervalMs: settings.sweepIntervalMs,
  });
  budget.startSweeper();
  const refusalRetention = new RefusalRetention(store, settings.accessLog.refusalRetentionDays, logger);
  refusalRetention.start();
  const debugCaptureRetention = new DebugCaptureRetention(store, settings.debugCapture.retentionDays, logger);
  debugCaptureRetention.start();
  const debugCaptures = new DebugCaptureWriter(store, logger, settings.debugCapture);
  const gatewayTools = createGatewayToolsService(store, {
    pendingTtlMs: settings.hardening.pendingTtlMs,
    pendingMaxPerKey: settings.hardening.pendingMaxPerKey,
  });
  const { alertRules, alertFirings, alerts } = createAlerts(store, keyring, logger, spendLimits, () =>
    collector?.worker.wake(),
  );
  usage.onCommitted((records) => alerts.afterSettle(records));
  const served = settings.surfaces;
  // The console shows the collector's events and components, so it needs the collector's
  // services even on an instance that does not take events in.
  const collector =
    served.has('console') || served.has('collector')
      ? (await import('../collector/create-collector.js')).createCollector(store, logger, env, settings.domains, {
          rules: alertRules,
          firings: alertFirings,
        })
      : undefined;
  const readiness = new Readiness(readinessChecks(store, collector?.redisReachable));
  const storeOnly = readiness.probe(['store']);
  const trustedProxy = trustedProxyMatcher(settings.trustedProxies);
  const base = {
    tls,
    logger,
    bodyLimitBytes: settings.bodyLimitBytes,
    metrics: settings.metrics,
    connections: settings.connections,
    jsonMaxDepth: settings.hardening.jsonMaxDepth,
    trustedProxy,
    accessLog: settings.accessLog,
    readiness: storeOnly,
  };
  const pacer = new HandshakePacer();
  untrackGauges.push(trackQueuedHandshakes(() => pacer.waiting));
  const shared = {
    gate: connectionGate(settings, logger),
    handshakeTimeoutMs: settings.connections.handshakeTimeoutMs,
    pacer,
    trustedProxy,
  };
  // A box per listener: an anonymous collector flood from an office's address must not refuse
  // the authenticated agents behind that address on the gateway or the console.
  const connections = () => ({ ...shared, penalties: new AddressPenalties(settings.addressPenalty) });
  const surfaces: Array<{ surface: Surface; port: number }> = [];
  if (served.has('gateway'))
    surfaces.push({
      port: settings.gatewayPort,
      surface: new Surface(
        'gateway',
        buildGatewayApp(
          { ...base, surface: 'gateway' },
          {
            store,
            // Read when a request starts: a reload swaps them for new requests only.
            get catalogue() {
              return live.current.catalogue;
            },
            authenticator,
            usage,
            budget,
            limits,
            get upstream() {
              return live.current.upstream;
            },
            maxConcurrency: settings.maxConcurrency,
            logger,
            gatewayTools,
            tracing,
            bodyLimits: settings.routeBodyLimits,
            compression: new CompressionConversations(store),
            storedRefusalsPerKeyPerMinute: settings.accessLog.storedRefusalsPerKeyPerMinute,
            storedResponses: new StoredResponses(store),
            organizationAccess,
            debugCaptures,
          },
        ),
        connections(),
      ),
    });
  if (served.has('console') && collector) {
    const { buildConsoleApp } = await import('../console/app.js');
    surfaces.push({
      port: settings.consolePort,
      surface: new Surface(
        'console',
        buildConsoleApp(
          { ...base, surface: 'console' },
          {
            store,
            apiKeys,
            authenticator,
            logger,
            gatewayTools,
            get catalogue() {
              return live.current.catalogue;
            },
            collector: collector.console,
            organizationAccess,
            alerts: {
              rules: alertRules,
              firings: alertFirings,
              targets: collector.console.webhookTargets,
              rulesChanged: (organizationId) => alerts.forgetRules(organizationId),
            },
            reload: (requestedBy) => broadcast.everywhere(requestedBy),
          },
        ),
        connections(),
      ),
    });
  }
  if (served.has('collector') && collector) {
    const { buildCollectorApp } = await import('../collector/app.js');
    const collectorConnections = connections();
    surfaces.push({
      port: settings.collectorPort,
      surface: new Surface(
        'collector',
        buildCollectorApp(
          {
            ...base,
            surface: 'collector',
            bodyLimitBytes: collector.settings.bodyLimitBytes,
            // Only the collector's rate limits use Redis: its outage leaves the other listeners ready.
            readiness: readiness.probe(collector.redisReachable ? ['store', 'redis'] : ['store']),
          },
          { ...collector.app, penalties: new ClientPenalties(collectorConnections.penalties, trustedProxy) },
        ),
        collectorConnections,
      ),
    });
  }
  const metricsSurface =
    settings.metrics.port === undefined
      ? undefined
      : new Surface('metrics', buildMetricsApp(base, settings.metrics.token), connections());
  const all = [...surfaces.map((s) => s.surface), ...(metricsSurface ? [metricsSurface] : [])];
  const tlsReloader = new TlsReloader(tls, { tls: tlsOptions, logger, watchIntervalMs: settings.tls.watchIntervalMs });
  const reloader = new Reloader({ live, keyring, keySource, tls: tlsReloader, logger });
  const broadcast = new ReloadBroadcast(store, reloader, settings.reloadPollMs, logger);
  try {
    await Promise.all([
      ...surfaces.map(({ surface, port }) => surface.start(settings.host, port)),
      ...(metricsSurface ? [metricsSurface.start(settings.metrics.host, settings.metrics.port!)] : []),
    ]);
  } catch (error) {
    for (const untrack of untrackGauges) untrack();
    await Promise.allSettled(all.map((s) => s.drain(0)));
    budget.stopSweeper();
    spendLimits.close();
    await refusalRetention.stop();
    await debugCaptureRetention.stop();
    await store.close();
    throw error;
  }

  const lastUsedTimer = setInterval(() => {
    authenticator.flushLastUsed().catch((error) => logger.warn({ err: error }, 'could not record key last-use times'));
  }, LAST_USED_FLUSH_MS);
  lastUsedTimer.unref();
  if (served.has('collector')) collector?.start();
  tlsReloader.start(all.map((surface) => surface.app.server as unknown as TlsServer));
  await broadcast.start();

  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      // Synchronously with the signal: the next probe already answers 503.
      readiness.startDraining();
      clearInterval(lastUsedTimer);
      tlsReloader.stop();
      broadcast.stop();
      budget.stopSweeper();
      const refusalRetentionStopped = refusalRetention.stop();
      const debugCaptureRetentionStopped = debugCaptureRetention.stop();
      // The outbox worker finishes or releases its in-flight deliveries while the listeners drain.
      const collectorStopped = collector?.stop();
      // Every listener keeps answering probes (503) until the last in-flight request anywhere
      // ends; a listener that went idle early may have taken a request since, hence the loop.
      const drainUntil = performance.now() + DRAIN_GRACE_MS;
      do await Promise.all(all.map((surface) => surface.settle(drainUntil - performance.now())));
      while (all.some((surface) => surface.busy) && performance.now() < drainUntil);
      await Promise.all(all.map((surface) => surface.close()));
      await collectorStopped;
      await refusalRetentionStopped;
      await debugCaptureRetentionStopped;
      await usage.drain();
      await debugCaptures.flush();
      await alerts.idle();
      await authenticator
        .flushLastUsed()
        .catch((error) => logger.warn({ err: error }, 'could not record key last-use times'));
      for (const untrack of untrackGauges) untrack();
      spendLimits.close();
      await tracing
        .shutdown()
        .catch((error) => logger.warn({ err: error }, 'could not export the last request traces'));
      await store.close();
    })());

  logger.info({ store: store.dialect, location: store.location, certificate: tls.certFile }, 'gateway started');
  logTrustHint(logger, tls);
  const byName = new Map(surfaces.map(({ surface }) => [surface.name as SurfaceName, surface]));
  const urls = servedOnly(byName, (surface) => surface.url) as RunningGateway['urls'];
  if (metricsSurface) urls.metrics = metricsSurface.url;
  return {
    urls,
    apps: servedOnly(byName, (surface) => surface.app),
    served,
    store,
    alerts,
    limitClock,
    reload: (trigger) => reloader.reload(trigger),
    stop,
  };
}

/** `store`: one query that needs the database up and every migration of this build applied. */
function readinessChecks(
  store: Store,
  redisReachable: (() => Promise<unknown>) | undefined,
): Record<string, ReadinessCheck> {
  const checks: Record<string, ReadinessCheck> = {
    store: async () => {
      const pending = await pendingMigrations(store);
      if (pending.length > 0) throw new Error(`migrations not applied: ${pending.join(', ')}`);
    },
  };
  if (redisReachable) checks.redis = redisReachable;
  return checks;
}

function servedOnly<T>(
  byName: ReadonlyMap<SurfaceName, Surface>,
  pick: (surface: Surface) => T,
): Record<SurfaceName, T> {
  const record = {} as Record<SurfaceName, T>;
  for (const name of SURFACE_NAMES) {
    const surface = byName.get(name);
    if (surface) record[name] = pick(surface);
    else
      Object.defineProperty(record, name, {
        enumerable: false,
        get() {
          throw new Error(`the ${name} surface is not served by this process (GATEWAY_SURFACES)`);
        },
      });
  }
  return record;
}

/** The start banner's pointer to `gateway trust`: what clients must trust and how to learn the variables. */
function logTrustHint(logger: Logger, tls: TlsMaterial): void {
  if (tls.changes.includes('migrated-self-signed'))
    logger.warn(
      { ca: tls.caFile, previous: 'tls/cert.self-signed.pem' },
      'the self-signed certificate of this data dir was replaced by one signed by a new local CA; clients that pinned the old certificate must trust the CA instead',
    );
  if (tls.caFile)
    logger.info(
      { ca: tls.caFile, changes: tls.changes },
      `clients must trust ${tls.caFile}: run \`gateway trust\` for each client's variable, \`gateway connect <client>\` for a complete setup`,
    );
}

/**
 * One gate for all listeners. A cap above what the open-files limit allows would let a flood of
 * connections starve the database and upstream sockets too, so it is lowered to fit, loudly.
 */
function connectionGate(settings: Settings, logger: Logger): ConnectionGate {
  const wanted = settings.connections.maxConnections;
  const fileLimit = openFilesLimit();
  const { cap, lowered } = fitConnectionCap(wanted, fileLimit);
  if (lowered) {
    logger.warn(
      { wanted, cap, openFilesLimit: fileLimit },
      'GATEWAY_MAX_CONNECTIONS does not fit the open-files limit (ulimit -n); connections are capped lower',
    );
  }
  return new ConnectionGate({
    maxConnections: cap,
    maxConnectionsPerAddress: settings.connections.maxConnectionsPerAddress,
  });
}
