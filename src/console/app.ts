import type { FastifyInstance } from 'fastify';
import { createApp, type AppOptions } from '../server/create-app.js';
import { CONSOLE_ERROR_DOCS, ConsoleError, sendConsoleError } from './console-error.js';
import { sendProblem } from '../server/error-registry.js';
import type { ConsoleServices } from './console-services.js';
import { registerConsoleAuth, registerOrganizationScope } from './auth/console-auth.js';
import { registerApiKeyRoutes } from './routes/api-keys.js';
import { registerUsageRoutes } from './routes/usage.js';
import { registerUsageSavingsRoute } from './routes/usage-savings.js';
import { registerSessionRoutes } from './routes/sessions.js';
import { registerDebugCaptureRoutes } from './routes/debug-captures.js';
import { registerSessionShareLinkRoutes } from './routes/session-share-links.js';
import { registerSharedSessionRoute } from './routes/shared-session.js';
import { registerAlertRoutes } from './routes/alerts.js';
import { registerLimitRoutes } from './routes/limits.js';
import { registerCurrentOrganizationRoute } from './routes/organization.js';
import { registerWebConsole } from './web-console.js';
import { registerGatewayToolRoutes } from './routes/gateway-tools.js';
import { registerConsoleCollectorRoutes } from './routes/console-collector-routes.js';
import { registerAdminReloadRoute } from './routes/admin-reload.js';
import { registerProviderKeyRoutes } from './routes/provider-keys.js';
import type { ConsoleToken } from '../store/console-tokens.js';
import { registerMemberScope } from './auth/member-scope.js';
import { registerMemberRoutes } from './routes/members.js';
import { registerMemberGroupRoutes } from './routes/member-groups.js';
import { registerInviteAcceptRoute } from './routes/invite-accept.js';

export function buildConsoleApp(
  base: Omit<AppOptions, 'sendError' | 'handleError'>,
  services: ConsoleServices,
): FastifyInstance {
  const app = createApp({
    ...base,
    errors: CONSOLE_ERROR_DOCS,
    // The web console's files and 404s are served without a token.
    principal: (request) => (request.consoleToken as ConsoleToken | null | undefined)?.id,
    sendError: sendProblem,
    handleError: (error, _request, reply) =>
      error instanceof ConsoleError ? sendConsoleError(reply, error) : undefined,
  });
  registerWebConsole(app);
  // A share link's holder has no console token: the link's own secret is checked by the route.
  registerSharedSessionRoute(app, services);
  registerInviteAcceptRoute(app, services);
  app.register(async (authenticated) => {
    registerConsoleAuth(authenticated, services.store);
    registerOrganizationScope(authenticated);
    registerMemberScope(authenticated);
    registerApiKeyRoutes(authenticated, services);
    registerUsageRoutes(authenticated, services);
    registerUsageSavingsRoute(authenticated, services);
    registerSessionRoutes(authenticated, services);
    registerDebugCaptureRoutes(authenticated, services);
    registerSessionShareLinkRoutes(authenticated, services);
    registerAlertRoutes(authenticated, services);
    registerLimitRoutes(authenticated, services);
    registerCurrentOrganizationRoute(authenticated, services.store);
    registerMemberRoutes(authenticated, services);
    registerMemberGroupRoutes(authenticated, services);
    registerConsoleCollectorRoutes(authenticated, services);
    registerGatewayToolRoutes(authenticated, services);
    if (services.reload) registerAdminReloadRoute(authenticated, services.reload);
    const { organizationAccess } = services;
    if (organizationAccess)
      registerProviderKeyRoutes(authenticated, {
        get catalogue() {
          return services.catalogue;
        },
        organizationAccess,
      });
  });
  return app;
}
