import type { Migration, MigrationProvider } from 'kysely';
import * as foundation from './001-foundation.js';
import * as gatewayTools from './002-gateway-tools.js';
import * as consoleCollector from './003-console-collector.js';
import * as usageIndex from './004-usage-index.js';
import * as collectorLimits from './005-collector-limits.js';
import * as domainClaims from './006-domain-claims.js';
import * as compressionConversations from './007-compression-conversations.js';
import * as compressionSavings from './008-compression-savings.js';
import * as pendingByKey from './009-pending-operations-by-key.js';
import * as unlistedModels from './010-unlisted-models.js';
import * as usageKeyIndex from './011-usage-key-index.js';
import * as outputBrevity from './012-output-brevity.js';
import * as toolSurface from './013-tool-surface.js';
import * as keyToolSurface from './014-key-tool-surface.js';
import * as usageRefusalRetention from './015-usage-refusal-retention.js';
import * as storedResponseContexts from './016-stored-response-contexts.js';
import * as compressionPrefixDigest from './017-compression-prefix-digest.js';
import * as reloadGeneration from './018-reload-generation.js';
import * as usageSessions from './025-usage-sessions.js';
import * as members from './026-members.js';
import * as providerKeys from './029-provider-keys.js';
import * as debugCaptures from './030-debug-captures.js';
import * as sessionSharing from './031-session-sharing.js';
import * as alerts from './028-alerts.js';
import * as windowLimits from './027-window-limits.js';

/** Migrations are compiled in, not discovered on disk, so the built package is self-contained. */
const migrations: Record<string, Migration> = {
  '001-foundation': foundation,
  '002-gateway-tools': gatewayTools,
  '003-console-collector': consoleCollector,
  '004-usage-index': usageIndex,
  '005-collector-limits': collectorLimits,
  '006-domain-claims': domainClaims,
  '007-compression-conversations': compressionConversations,
  '008-compression-savings': compressionSavings,
  '009-pending-operations-by-key': pendingByKey,
  '010-unlisted-models': unlistedModels,
  '011-usage-key-index': usageKeyIndex,
  '012-output-brevity': outputBrevity,
  '013-tool-surface': toolSurface,
  '014-key-tool-surface': keyToolSurface,
  '015-usage-refusal-retention': usageRefusalRetention,
  '016-stored-response-contexts': storedResponseContexts,
  '017-compression-prefix-digest': compressionPrefixDigest,
  '018-reload-generation': reloadGeneration,
  '025-usage-sessions': usageSessions,
  '026-members': members,
  '029-provider-keys': providerKeys,
  '030-debug-captures': debugCaptures,
  '031-session-sharing': sessionSharing,
  '028-alerts': alerts,
  '027-window-limits': windowLimits,
};

export const migrationProvider: MigrationProvider = {
  getMigrations: async () => migrations,
};

/** This build's migrations by name (newer-migrations.ts adds the ones a newer build ran). */
export const KNOWN_MIGRATIONS: Readonly<Record<string, Migration>> = migrations;

/** Every migration this build knows, by name: a store lacking one is not ready for it. */
export const MIGRATION_NAMES: readonly string[] = Object.keys(migrations);
