import type { Store } from '../store/database.js';
import { gatewayToolRegistry, type GatewayToolRegistry } from './registry.js';
import { ToolSettingsRepository } from './tool-settings.js';
import { PENDING_MAX_PER_KEY, PENDING_TTL_MS, PendingOperationRepository } from './pending-operations.js';

/** What the chat pipeline and the console share about gateway tools; one per process. */
export interface GatewayToolsService {
  registry: GatewayToolRegistry;
  settings: ToolSettingsRepository;
  pending: PendingOperationRepository;
}

export function createGatewayToolsService(
  store: Store,
  options: { settingsTtlMs?: number; now?: () => number; pendingTtlMs?: number; pendingMaxPerKey?: number } = {},
): GatewayToolsService {
  return {
    registry: gatewayToolRegistry,
    settings: new ToolSettingsRepository(store, options.settingsTtlMs ?? 1_000, options.now),
    pending: new PendingOperationRepository(store, options.now, {
      ttlMs: options.pendingTtlMs ?? PENDING_TTL_MS,
      maxPerKey: options.pendingMaxPerKey ?? PENDING_MAX_PER_KEY,
    }),
  };
}
