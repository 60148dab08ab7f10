import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Static } from '@sinclair/typebox';
import type { ConsoleServices } from '../console-services.js';
import { ConsoleError } from '../console-error.js';
import { ApiKeyParamsSchema, OrgParamsSchema } from '../schemas/api-key.js';
import { listBody, paging } from '../schemas/paging.js';
import {
  CaptureDetailSchema,
  CaptureDiffQuerySchema,
  CaptureDiffSchema,
  CaptureListQuerySchema,
  CaptureListSchema,
  CaptureParamsSchema,
  DebugCaptureSettingBodySchema,
  DebugCaptureSettingSchema,
  type CaptureListQuery,
  type DebugCaptureSettingBody,
} from '../schemas/debug-captures.js';
import {
  debugCaptureOf,
  debugCapturePage,
  setDebugCaptureUntil,
  type DebugCaptureSummary,
} from '../../store/debug-captures.js';
import { captureDiff } from '../debug/capture-diff.js';

const iso = (ms: number) => new Date(ms).toISOString();
const TAGS = ['debug capture'];

function presentSummary(row: DebugCaptureSummary) {
  return {
    object: 'debug_capture' as const,
    id: row.id,
    api_key_id: row.api_key_id,
    request_id: row.request_id,
    created_at: iso(row.created_at),
    endpoint: row.endpoint,
    model: row.model,
    status_code: row.status_code,
    bytes: row.bytes,
  };
}

/** A capture's bodies are the organization's prompts: a read-only token lists captures, it does not open them. */
function refuseReadOnly(request: FastifyRequest): void {
  if (request.consoleToken.permission === 'read')
    throw new ConsoleError('forbidden', 'Opening a debug capture needs a write or admin console token.');
}

/**
 * Debug capture (docs/debug-capture.md): turning it on for a key for a while and off again, the
 * captures of an organization (or one key) newest first, one capture, and the diff of what was
 * received against what one upstream attempt was sent.
 */
export function registerDebugCaptureRoutes(app: FastifyInstance, services: ConsoleServices): void {
  const { store, apiKeys, authenticator } = services;
  const keyNotFound = () => new ConsoleError('not_found', 'No API key with that id in this organization.');
  const captureNotFound = () => new ConsoleError('not_found', 'No debug capture with that id in this organization.');
  const setting = (apiKeyId: string, until: number | null | undefined, now = Date.now()) => ({
    object: 'debug_capture_setting' as const,
    api_key_id: apiKeyId,
    capturing: until !== null && until !== undefined && until > now,
    until: until !== null && until !== undefined && until > now ? iso(until) : null,
  });

  app.get<{ Params: Static<typeof ApiKeyParamsSchema> }>(
    '/v1/organizations/:orgId/api_keys/:apiKeyId/debug_capture',
    {
      schema: {
        summary: "Whether the key's requests are being captured, and until when",
        tags: TAGS,
        params: ApiKeyParamsSchema,
        response: { 200: DebugCaptureSettingSchema },
      },
    },
    async (request) => {
      const key = await apiKeys.get(request.params.orgId, request.params.apiKeyId);
      if (!key) throw keyNotFound();
      return setting(key.id, key.debugCaptureUntil);
    },
  );

  app.put<{ Params: Static<typeof ApiKeyParamsSchema>; Body: DebugCaptureSettingBody }>(
    '/v1/organizations/:orgId/api_keys/:apiKeyId/debug_capture',
    {
      schema: {
        summary: "Captures the key's requests from now for `duration_minutes` (at most a day)",
        tags: TAGS,
        params: ApiKeyParamsSchema,
        body: DebugCaptureSettingBodySchema,
        response: { 200: DebugCaptureSettingSchema },
      },
    },
    async (request) => {
      const { orgId, apiKeyId } = request.params;
      const now = Date.now();
      const until = now + request.body.duration_minutes * 60_000;
      if (!(await setDebugCaptureUntil(store, orgId, apiKeyId, until))) throw keyNotFound();
      authenticator.forget(apiKeyId);
      return setting(apiKeyId, until, now);
    },
  );

  app.delete<{ Params: Static<typeof ApiKeyParamsSchema> }>(
    '/v1/organizations/:orgId/api_keys/:apiKeyId/debug_capture',
    {
      schema: {
        summary: "Stops capturing the key's requests (its captures stay until they expire)",
        tags: TAGS,
        params: ApiKeyParamsSchema,
        response: { 200: DebugCaptureSettingSchema },
      },
    },
    async (request) => {
      const { orgId, apiKeyId } = request.params;
      if (!(await setDebugCaptureUntil(store, orgId, apiKeyId, null))) throw keyNotFound();
      authenticator.forget(apiKeyId);
      return setting(apiKeyId, null);
    },
  );

  app.get<{ Params: Static<typeof OrgParamsSchema>; Querystring: CaptureListQuery }>(
    '/v1/organizations/:orgId/debug_captures',
    {
      schema: {
        summary: "The organization's debug captures, newest first (one key's with api_key_id)",
        tags: TAGS,
        params: OrgParamsSchema,
        querystring: CaptureListQuerySchema,
        response: { 200: CaptureListSchema },
      },
    },
    async (request) => {
      const { orgId } = request.params;
      const { limit, startingAfter } = paging(request.query);
      const page = await debugCapturePage(
        store,
        { organizationId: orgId, apiKeyId: request.query.api_key_id },
        limit,
        startingAfter,
      );
      return listBody(`/v1/organizations/${orgId}/debug_captures`, page.rows.map(presentSummary), page.hasMore);
    },
  );

  app.get<{ Params: Static<typeof CaptureParamsSchema> }>(
    '/v1/organizations/:orgId/debug_captures/:captureId',
    {
      schema: {
        summary: 'One capture: the request as received, as sent upstream per attempt, and the answer',
        tags: TAGS,
        params: CaptureParamsSchema,
        response: { 200: CaptureDetailSchema },
      },
    },
    async (request) => {
      refuseReadOnly(request);
      const row = await debugCaptureOf(store, request.params.orgId, request.params.captureId);
      if (!row) throw captureNotFound();
      return {
        ...presentSummary(row),
        received: JSON.parse(row.received) as unknown,
        upstream: JSON.parse(row.upstream) as unknown,
        answer: JSON.parse(row.answer) as unknown,
      };
    },
  );

  app.get<{ Params: Static<typeof CaptureParamsSchema>; Querystring: Static<typeof CaptureDiffQuerySchema> }>(
    '/v1/organizations/:orgId/debug_captures/:captureId/diff',
    {
      schema: {
        summary: 'What the gateway changed: the received body against the body one upstream attempt got, item by item',
        tags: TAGS,
        params: CaptureParamsSchema,
        querystring: CaptureDiffQuerySchema,
        response: { 200: CaptureDiffSchema },
      },
    },
    async (request) => {
      refuseReadOnly(request);
      const row = await debugCaptureOf(store, request.params.orgId, request.params.captureId);
      if (!row) throw captureNotFound();
      const received = JSON.parse(row.received) as { body: { text: string } };
      const { attempts } = JSON.parse(row.upstream) as { attempts: Array<{ body: { text: string } }> };
      const wanted = request.query.attempt === undefined ? attempts.length - 1 : Number(request.query.attempt);
      if (request.query.attempt !== undefined && wanted >= attempts.length)
        throw new ConsoleError(
          'invalid_request',
          `This capture has ${attempts.length} upstream attempt(s).`,
          'attempt',
        );
      const attempt = attempts[wanted];
      const diff = attempt
        ? captureDiff(received.body.text, attempt.body.text)
        : {
            ...captureDiff('', ''),
            reason: 'Nothing was sent upstream (refused, or answered by a provider the gateway runs in-process).',
          };
      return { object: 'debug_capture_diff' as const, id: row.id, attempt: attempt ? wanted : null, ...diff };
    },
  );
}
