import type { Logger } from 'pino';
import { readSettings, type Settings } from '../config/settings.js';
import { loadGatewayConfig } from '../config/gateway-config.js';
import { Catalogue } from '../catalogue/catalogue.js';
import { openStore, type Store } from '../store/database.js';
import { loadMasterKey } from '../secrets/master-key.js';
import { ApiKeyRepository } from '../store/api-keys.js';
import { KeyAuthenticator } from '../gateway/auth/key-authenticator.js';
import { buildGatewayApp } from '../gateway/app.js';
import { buildConsoleApp } from '../console/app.js';
import { buildCollectorApp } from '../collector/app.js';
import { createLogger } from './logger.js';
import { loadTls } from './tls.js';
import { Surface } from './surface.js';

export interface RunningGateway {
  urls: { gateway: string; console: string; collector: string };
  store: Store;
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
  const config = loadGatewayConfig(settings.configFile);
  const catalogue = new Catalogue(config, env);
  const tls = await loadTls({ dataDir: settings.dataDir, certFile: settings.tlsCertFile, keyFile: settings.tlsKeyFile });
  const store = await openStore({ dataDir: settings.dataDir, databaseUrl: settings.databaseUrl, schema: settings.databaseSchema });
  const masterKey = loadMasterKey(settings.dataDir, settings.secretKey);
  const apiKeys = new ApiKeyRepository(store, masterKey);
  const authenticator = new KeyAuthenticator(apiKeys, settings.keyCacheTtlMs);

  const base = { tls, logger, bodyLimitBytes: settings.bodyLimitBytes };
  const surfaces = [
    new Surface('gateway', buildGatewayApp(base, { store, catalogue, authenticator, logger })),
    new Surface('console', buildConsoleApp(base, { store, apiKeys, authenticator, logger })),
    new Surface('collector', buildCollectorApp(base)),
  ] as const;
  const ports = [settings.gatewayPort, settings.consolePort, settings.collectorPort];
  try {
    await Promise.all(surfaces.map((surface, i) => surface.start(settings.host, ports[i]!)));
  } catch (error) {
    await Promise.allSettled(surfaces.map((s) => s.drain(0)));
    await store.close();
    throw error;
  }

  const lastUsedTimer = setInterval(() => {
    authenticator.flushLastUsed().catch((error) => logger.warn({ err: error }, 'could not record key last-use times'));
  }, LAST_USED_FLUSH_MS);
  lastUsedTimer.unref();

  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      clearInterval(lastUsedTimer);
      await Promise.all(surfaces.map((surface) => surface.drain(DRAIN_GRACE_MS)));
      await authenticator.flushLastUsed().catch((error) => logger.warn({ err: error }, 'could not record key last-use times'));
      await store.close();
    })());

  logger.info({ store: store.dialect, location: store.location, certificate: tls.certFile }, 'gateway started');
  return {
    urls: { gateway: surfaces[0].url, console: surfaces[1].url, collector: surfaces[2].url },
    store,
    stop,
  };
}
