import type { Migration, MigrationProvider } from 'kysely';
import * as foundation from './001-foundation.js';
import * as gatewayTools from './002-gateway-tools.js';
import * as consoleCollector from './003-console-collector.js';
import * as usageIndex from './004-usage-index.js';
import * as collectorLimits from './005-collector-limits.js';

/** Migrations are compiled in, not discovered on disk, so the built package is self-contained. */
const migrations: Record<string, Migration> = {
  '001-foundation': foundation,
  '002-gateway-tools': gatewayTools,
  '003-console-collector': consoleCollector,
  '004-usage-index': usageIndex,
  '005-collector-limits': collectorLimits,
};

export const migrationProvider: MigrationProvider = {
  getMigrations: async () => migrations,
};
