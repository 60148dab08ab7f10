import type { FastifyInstance } from 'fastify';
import type { Static } from '@sinclair/typebox';
import type { ConsoleServices } from '../console-services.js';
import type { GatewayTool } from '../../gateway-tools/types.js';
import { toFunctionTool } from '../../gateway-tools/registry.js';
import { createGatewayToolsService } from '../../gateway-tools/service.js';
import { inactiveSetting, type ToolSetting } from '../../gateway-tools/tool-settings.js';
import { ConsoleError } from '../console-error.js';
import { OrgParamsSchema } from '../schemas/api-key.js';
import {
  GatewayToolParamsSchema,
  UpdateGatewayToolBodySchema,
  type UpdateGatewayToolBody,
} from '../schemas/gateway-tool.js';

/** A built-in tool with its state in one organization (docs/gateway-tools.md). */
export function presentGatewayTool(tool: GatewayTool, setting: ToolSetting) {
  return {
    object: 'gateway_tool' as const,
    id: tool.id,
    description: tool.description,
    parameters: toFunctionTool(tool).function.parameters,
    timeout_ms: tool.timeoutMs ?? 2_000,
    active: setting.active,
    active_key_ids: setting.activeKeyIds,
    hydrate: setting.hydrate,
    hydrate_key_ids: setting.hydrateKeyIds,
    updated_at: setting.updatedAt === null ? null : new Date(setting.updatedAt).toISOString(),
  };
}

/**
 * GET  /v1/organizations/{orgId}/gateway_tools            catalogue and state
 * GET  /v1/organizations/{orgId}/gateway_tools/{toolId}   one tool
 * POST /v1/organizations/{orgId}/gateway_tools/{toolId}   activate, restrict to keys, hydrate
 */
export function registerGatewayToolRoutes(app: FastifyInstance, services: ConsoleServices): void {
  const tools = services.gatewayTools ?? createGatewayToolsService(services.store);
  const toolOr404 = (id: string) => {
    const tool = tools.registry.get(id);
    if (!tool)
      throw new ConsoleError(
        'not_found',
        `No gateway tool "${id.slice(0, 100)}"; GET /v1/organizations/{orgId}/gateway_tools lists them.`,
      );
    return tool;
  };

  app.get<{ Params: Static<typeof OrgParamsSchema> }>(
    '/v1/organizations/:orgId/gateway_tools',
    { schema: { params: OrgParamsSchema } },
    async (request) => {
      const settings = await tools.settings.read(request.params.orgId);
      const data = tools.registry
        .list()
        .map((tool) => presentGatewayTool(tool, settings.get(tool.id) ?? inactiveSetting(tool.id)));
      return { object: 'list', data };
    },
  );

  app.get<{ Params: Static<typeof GatewayToolParamsSchema> }>(
    '/v1/organizations/:orgId/gateway_tools/:toolId',
    { schema: { params: GatewayToolParamsSchema } },
    async (request) => {
      const tool = toolOr404(request.params.toolId);
      const settings = await tools.settings.read(request.params.orgId);
      return presentGatewayTool(tool, settings.get(tool.id) ?? inactiveSetting(tool.id));
    },
  );

  app.post<{ Params: Static<typeof GatewayToolParamsSchema>; Body: UpdateGatewayToolBody }>(
    '/v1/organizations/:orgId/gateway_tools/:toolId',
    { schema: { params: GatewayToolParamsSchema, body: UpdateGatewayToolBodySchema } },
    async (request) => {
      const { orgId } = request.params;
      const tool = toolOr404(request.params.toolId);
      const body = request.body;
      const named = [...(body.active_key_ids ?? []), ...(body.hydrate_key_ids ?? [])];
      if (named.length > 0) {
        const own = new Set((await services.apiKeys.list(orgId)).map((key) => key.id));
        for (const field of ['active_key_ids', 'hydrate_key_ids'] as const) {
          const foreign = (body[field] ?? []).filter((id) => !own.has(id));
          if (foreign.length > 0) {
            throw new ConsoleError(
              'invalid_request',
              `${field} holds ids that are not API keys of this organization: ${foreign.slice(0, 20).join(', ')}.`,
              field,
            );
          }
        }
      }
      const setting = await tools.settings.update(orgId, tool.id, {
        ...(body.active !== undefined ? { active: body.active } : {}),
        ...(body.active_key_ids !== undefined ? { activeKeyIds: body.active_key_ids } : {}),
        ...(body.hydrate !== undefined ? { hydrate: body.hydrate } : {}),
        ...(body.hydrate_key_ids !== undefined ? { hydrateKeyIds: body.hydrate_key_ids } : {}),
      });
      return presentGatewayTool(tool, setting);
    },
  );
}
