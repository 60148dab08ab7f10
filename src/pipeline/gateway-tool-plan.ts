import type { ApiKey } from '../store/api-keys.js';
import type { GatewayTool } from '../gateway-tools/types.js';
import type { GatewayToolsService } from '../gateway-tools/service.js';
import { toFunctionTool } from '../gateway-tools/registry.js';
import { hydratedFor, usableBy } from '../gateway-tools/tool-settings.js';
import { mergePendingOperation } from '../gateway-tools/resume.js';
import type { ChatRequest } from '../canonical/chat-request.js';
import { GatewayError } from './errors.js';

/** The gateway tools of one request: injected into its tools, run by the gateway when the model calls them. */
export interface GatewayToolPlan {
  /** By function name (= tool id). */
  tools: Map<string, GatewayTool>;
  /** The pending id this request resumed, if any. */
  resumedPendingId?: string;
}

/**
 * Decides which gateway tools a request gets (spec 2.1) and fills a deferred turn back in:
 * `gateway_tool_ids` non-empty → exactly those, each usable by the key, else 400
 * `invalid_gateway_tool_ids` naming every bad id; omitted or empty → the tools hydrated for the
 * organization or the key. A `gateway_pending_id` must be this key's and unexpired, else 400
 * `invalid_request` on `gateway_pending_id`; the tools it called are injected again so the
 * history's calls stay declared. Returns the body with the merged history (tools not yet added).
 */
export async function planGatewayTools(
  service: GatewayToolsService | undefined,
  key: ApiKey,
  body: ChatRequest,
): Promise<{ body: ChatRequest; plan: GatewayToolPlan | undefined }> {
  if (!service) return { body, plan: undefined };
  const settings = await service.settings.forOrganization(key.organizationId);
  const usable = (id: string) => {
    const setting = settings.get(id);
    return service.registry.has(id) && setting !== undefined && usableBy(setting, key.id);
  };
  // Built on the first tool: most requests name none, resume no turn, and get none hydrated.
  let tools: Map<string, GatewayTool> | undefined;
  const add = (id: string, tool: GatewayTool) => (tools ??= new Map()).set(id, tool);
  if (body.gateway_tool_ids !== undefined && body.gateway_tool_ids.length > 0) {
    const requested = [...new Set(body.gateway_tool_ids)];
    const bad = requested.filter((id) => !usable(id));
    if (bad.length > 0) {
      const list = bad.map((id) => `"${id.length > 64 ? `${id.slice(0, 64)}…` : id}"`).join(', ');
      throw new GatewayError('invalid_gateway_tool_ids', {
        message: `Unknown or not activated gateway tool ids: ${list}.`,
        param: 'gateway_tool_ids',
        extra: { invalid_ids: bad.slice(0, 64) },
      });
    }
    for (const id of requested) add(id, service.registry.get(id)!);
  } else {
    for (const [id, setting] of settings) {
      const tool = service.registry.get(id);
      if (tool && hydratedFor(setting, key.id)) add(id, tool);
    }
  }

  let messages = body.messages;
  const pendingId = body.gateway_pending_id;
  if (pendingId !== undefined) {
    const invalid = (message: string) => new GatewayError('invalid_request', { message, param: 'gateway_pending_id' });
    const operation = await service.pending.find(pendingId, key.organizationId, key.id);
    if (!operation) throw invalid('Unknown or expired gateway_pending_id, or it was issued to another API key.');
    const merged = mergePendingOperation(body.messages, operation);
    if (!merged) {
      throw invalid(
        'The messages hold no assistant message with the tool calls this gateway_pending_id was issued for; send the history back with them.',
      );
    }
    messages = merged;
    for (const result of operation.gatewayResults) {
      if (!tools?.has(result.name) && usable(result.name)) add(result.name, service.registry.get(result.name)!);
    }
  }

  const merged = messages === body.messages ? body : { ...body, messages };
  if (tools === undefined) return { body: merged, plan: undefined };
  const injected = tools;
  const clash = (body.tools ?? []).map((t) => t.function.name).filter((name) => injected.has(name));
  if (clash.length > 0) {
    throw new GatewayError('invalid_request', {
      message: `tools declares ${clash.map((n) => `"${n}"`).join(', ')}, which is also a gateway tool injected into this request; rename the tool.`,
      param: 'tools',
    });
  }
  return { body: merged, plan: { tools, ...(pendingId !== undefined ? { resumedPendingId: pendingId } : {}) } };
}

/** The upstream body: the client's tools, then the gateway's. */
export function injectGatewayTools(body: ChatRequest, plan: GatewayToolPlan | undefined): ChatRequest {
  if (!plan) return body;
  return { ...body, tools: [...(body.tools ?? []), ...[...plan.tools.values()].map(toFunctionTool)] };
}
