import type { FastifyInstance } from 'fastify';
import type { ConsoleCollectorServices } from './console-collector-services.js';
import { registerUsageExportRoute } from './usage-export.js';
import { registerApiTokenRoutes } from './api-tokens.js';
import { registerProjectRoutes } from './projects.js';
import { registerProjectDomainRoutes } from './project-domains.js';
import { registerProxySettingsRoutes } from './proxy-settings.js';
import { registerComponentRoutes } from './components.js';
import { registerProjectComponentRoutes } from './project-components.js';
import { registerProjectEventRoutes } from './project-events.js';

/** Issue 6's console routes: usage export, API tokens, projects, proxy settings, components, events. */
export function registerConsoleCollectorRoutes(
  app: FastifyInstance,
  services: { collector: ConsoleCollectorServices },
): void {
  const collector = services.collector;
  registerUsageExportRoute(app, collector.store);
  registerApiTokenRoutes(app, collector.store);
  registerProjectRoutes(app, collector);
  registerProjectDomainRoutes(app, collector);
  registerProxySettingsRoutes(app, collector);
  registerComponentRoutes(app, collector);
  registerProjectComponentRoutes(app, collector);
  registerProjectEventRoutes(app, collector);
}
