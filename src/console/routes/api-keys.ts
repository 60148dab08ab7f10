import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Static } from '@sinclair/typebox';
import type { ApiKey } from '../../store/api-keys.js';
import type { ConsoleServices } from '../console-services.js';
import { ConsoleError } from '../console-error.js';
import { confinedMemberId } from '../auth/member-scope.js';
import { OrganizationMemberRepository } from '../../store/organization-members.js';
import {
  ApiKeyParamsSchema,
  CreateApiKeyBodySchema,
  OrgParamsSchema,
  UpdateApiKeyBodySchema,
  type CreateApiKeyBody,
  type UpdateApiKeyBody,
} from '../schemas/api-key.js';

const DAY_MS = 24 * 3_600_000;
const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/** The spec 2.8 object; `key` only when the caller is entitled to see the secret. */
export function presentApiKey(key: ApiKey, lastUsedAt: number | null, secret?: string) {
  return {
    object: 'ai_gateway_api_key' as const,
    id: key.id,
    organization_id: key.organizationId,
    name: key.name,
    type: key.type,
    coding_assistant: key.codingAssistant,
    models: key.models,
    max_usage: key.maxUsageUsd,
    active: key.active,
    debug_mode: key.debugMode,
    compression: key.compression,
    cache_breakpoints: key.cacheBreakpoints,
    output_brevity: key.outputBrevity,
    tool_surface: key.toolSurface,
    member_id: key.memberId,
    created_at: iso(key.createdAt)!,
    expires_at: iso(key.expiresAt),
    last_used_at: iso(lastUsedAt),
    ...(secret !== undefined ? { key: secret } : {}),
  };
}

export function registerApiKeyRoutes(app: FastifyInstance, services: ConsoleServices): void {
  const { apiKeys, authenticator } = services;
  const lastUsed = (key: ApiKey) => Math.max(key.lastUsedAt ?? 0, authenticator.pendingLastUsed(key.id) ?? 0) || null;
  const notFound = () => new ConsoleError('not_found', 'No API key with that id in this organization.');
  const members = new OrganizationMemberRepository(services.store);

  /**
   * The owner a key gets: a `member` token's keys are its own (naming another member is refused);
   * anyone else may name any current member of the organization, or null.
   */
  async function keyOwner(request: FastifyRequest, orgId: string, memberId: string | null | undefined) {
    const self = confinedMemberId(request);
    if (self !== null) {
      if (memberId !== undefined && memberId !== self)
        throw new ConsoleError('forbidden', 'A member may own keys only itself.', 'member_id');
      return self;
    }
    if (memberId && !(await members.get(orgId, memberId)))
      throw new ConsoleError('invalid_request', 'member_id names no member of this organization.', 'member_id');
    return memberId;
  }

  /** A `member` token sees only its own keys: any other key is, to it, not there. */
  async function visibleKey(request: FastifyRequest, orgId: string, id: string): Promise<ApiKey> {
    const key = await apiKeys.get(orgId, id);
    const self = confinedMemberId(request);
    if (!key || (self !== null && key.memberId !== self)) throw notFound();
    return key;
  }
  /** For routes that need no key of their own: only a confined token pays for the look-up. */
  const checkVisible = (request: FastifyRequest, orgId: string, id: string) =>
    confinedMemberId(request) === null ? undefined : visibleKey(request, orgId, id);

  /**
   * The type and assistant a key ends up with after an update, checked as at creation: a coding
   * agent names its assistant, an API key names none (switching to `api` clears it).
   */
  async function keyKind(organizationId: string, id: string, body: UpdateApiKeyBody) {
    const current = await apiKeys.get(organizationId, id);
    if (!current) throw notFound();
    const type = body.type ?? current.type;
    const assistant = type === 'api' && body.type === 'api' ? (body.coding_assistant ?? null) : body.coding_assistant;
    const codingAssistant = assistant === undefined ? current.codingAssistant : assistant;
    if (type === 'coding_agent' && !codingAssistant)
      throw new ConsoleError(
        'invalid_request',
        'coding_assistant is required when type is coding_agent (claude_code, codex or opencode).',
        'coding_assistant',
      );
    if (type === 'api' && codingAssistant)
      throw new ConsoleError(
        'invalid_request',
        'coding_assistant is only allowed when type is coding_agent.',
        'coding_assistant',
      );
    return { type, codingAssistant };
  }

  app.post<{ Params: Static<typeof OrgParamsSchema>; Body: CreateApiKeyBody }>(
    '/v1/organizations/:orgId/api_keys',
    { schema: { params: OrgParamsSchema, body: CreateApiKeyBodySchema } },
    async (request, reply) => {
      const body = request.body;
      const type = body.type ?? 'api';
      if (type === 'coding_agent' && !body.coding_assistant) {
        throw new ConsoleError(
          'invalid_request',
          'coding_assistant is required when type is coding_agent (claude_code, codex or opencode).',
          'coding_assistant',
        );
      }
      if (type === 'api' && body.coding_assistant) {
        throw new ConsoleError(
          'invalid_request',
          'coding_assistant is only allowed when type is coding_agent.',
          'coding_assistant',
        );
      }
      const memberId = await keyOwner(request, request.params.orgId, body.member_id);
      const { apiKey, secret } = await apiKeys.create({
        organizationId: request.params.orgId,
        memberId: memberId ?? null,
        name: body.name,
        type,
        codingAssistant: body.coding_assistant ?? null,
        models: body.models ?? [],
        maxUsageUsd: body.max_usage ?? null,
        expiresInDays: body.expires_in_days ?? null,
        email: body.email ?? null,
        debugMode: body.debug_mode ?? false,
        compression: body.compression ?? false,
        cacheBreakpoints: body.cache_breakpoints ?? true,
        outputBrevity: body.output_brevity ?? false,
        toolSurface: body.tool_surface ?? true,
      });
      return reply.code(201).send(presentApiKey(apiKey, null, secret));
    },
  );

  app.get<{ Params: Static<typeof OrgParamsSchema> }>(
    '/v1/organizations/:orgId/api_keys',
    { schema: { params: OrgParamsSchema } },
    async (request) => {
      const self = confinedMemberId(request);
      const all = await apiKeys.list(request.params.orgId);
      const keys = self === null ? all : all.filter((key) => key.memberId === self);
      return { object: 'list', data: keys.map((key) => presentApiKey(key, lastUsed(key))) };
    },
  );

  app.get<{ Params: Static<typeof ApiKeyParamsSchema> }>(
    '/v1/organizations/:orgId/api_keys/:apiKeyId',
    { schema: { params: ApiKeyParamsSchema } },
    async (request) => {
      const key = await visibleKey(request, request.params.orgId, request.params.apiKeyId);
      return presentApiKey(key, lastUsed(key));
    },
  );

  app.post<{ Params: Static<typeof ApiKeyParamsSchema>; Body: UpdateApiKeyBody }>(
    '/v1/organizations/:orgId/api_keys/:apiKeyId',
    { schema: { params: ApiKeyParamsSchema, body: UpdateApiKeyBodySchema } },
    async (request) => {
      const body = request.body;
      await checkVisible(request, request.params.orgId, request.params.apiKeyId);
      const memberId =
        body.member_id !== undefined ? await keyOwner(request, request.params.orgId, body.member_id) : undefined;
      const kind =
        body.type !== undefined || body.coding_assistant !== undefined
          ? await keyKind(request.params.orgId, request.params.apiKeyId, body)
          : {};
      const key = await apiKeys.update(request.params.orgId, request.params.apiKeyId, {
        ...(body.name !== undefined ? { name: body.name } : {}),
        ...(body.active !== undefined ? { active: body.active } : {}),
        ...(body.models !== undefined ? { models: body.models } : {}),
        ...(body.max_usage !== undefined ? { maxUsageUsd: body.max_usage } : {}),
        ...(body.compression !== undefined ? { compression: body.compression } : {}),
        ...(body.cache_breakpoints !== undefined ? { cacheBreakpoints: body.cache_breakpoints } : {}),
        ...(body.output_brevity !== undefined ? { outputBrevity: body.output_brevity } : {}),
        ...(body.tool_surface !== undefined ? { toolSurface: body.tool_surface } : {}),
        ...(body.debug_mode !== undefined ? { debugMode: body.debug_mode } : {}),
        ...(body.expires_in_days !== undefined
          ? { expiresAt: body.expires_in_days === null ? null : Date.now() + body.expires_in_days * DAY_MS }
          : {}),
        ...kind,
        ...(memberId !== undefined ? { memberId } : {}),
      });
      if (!key) throw notFound();
      authenticator.forget(key.id);
      return presentApiKey(key, lastUsed(key));
    },
  );

  app.delete<{ Params: Static<typeof ApiKeyParamsSchema> }>(
    '/v1/organizations/:orgId/api_keys/:apiKeyId',
    { schema: { params: ApiKeyParamsSchema } },
    async (request) => {
      await checkVisible(request, request.params.orgId, request.params.apiKeyId);
      const deleted = await apiKeys.delete(request.params.orgId, request.params.apiKeyId);
      if (!deleted) throw notFound();
      authenticator.forget(request.params.apiKeyId);
      return { object: 'ai_gateway_api_key', id: request.params.apiKeyId, deleted: true };
    },
  );

  app.get<{ Params: Static<typeof ApiKeyParamsSchema> }>(
    '/v1/organizations/:orgId/api_keys/:apiKeyId/reveal',
    { schema: { params: ApiKeyParamsSchema } },
    async (request) => {
      // Reading a secret is a privileged act even though it is a GET: read-only tokens may list keys, not reveal them.
      if (request.consoleToken.permission === 'read')
        throw new ConsoleError('forbidden', 'Revealing a key needs a write or admin console token.');
      await checkVisible(request, request.params.orgId, request.params.apiKeyId);
      const revealed = await apiKeys.reveal(request.params.orgId, request.params.apiKeyId);
      if (!revealed) throw notFound();
      return presentApiKey(revealed.apiKey, lastUsed(revealed.apiKey), revealed.secret);
    },
  );
}
