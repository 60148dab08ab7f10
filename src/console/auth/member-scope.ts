import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { OrganizationMember } from '../../store/organization-members.js';
import { ConsoleError } from '../console-error.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The member a member-bound console token signs in as (console_tokens.member_id); null: an organization-wide token. */
    consoleMember: OrganizationMember | null;
  }
}

/**
 * What a token of a `member` (role) may reach: its own keys, its own usage and its own entry in
 * the member list. Deny by default: a route added later is closed to members until listed here.
 * `ownUsage` routes get `member_id` forced to the member (another member's id is refused).
 */
const MEMBER_ROUTES: ReadonlyMap<string, 'own_keys' | 'own_usage' | 'self' | 'org_read'> = new Map([
  ['GET /v1/organizations/me', 'self'],
  // Read-only settings the keys page shows beside each key (tools' key lists name ids only).
  ['GET /v1/organizations/:orgId/gateway_tools', 'org_read'],
  ['GET /v1/organizations/:orgId/members', 'self'],
  ['GET /v1/organizations/:orgId/api_keys', 'own_keys'],
  ['POST /v1/organizations/:orgId/api_keys', 'own_keys'],
  ['GET /v1/organizations/:orgId/api_keys/:apiKeyId', 'own_keys'],
  ['POST /v1/organizations/:orgId/api_keys/:apiKeyId', 'own_keys'],
  ['DELETE /v1/organizations/:orgId/api_keys/:apiKeyId', 'own_keys'],
  ['GET /v1/organizations/:orgId/api_keys/:apiKeyId/reveal', 'own_keys'],
  ['GET /v1/organizations/:orgId/usage/keys', 'own_keys'],
  ['GET /v1/organizations/:orgId/usage/summary', 'own_usage'],
  ['GET /v1/organizations/:orgId/logs/export', 'own_usage'],
  // Its own sessions' list (a session's page and the filter values name other members: closed).
  ['GET /v1/organizations/:orgId/sessions', 'own_usage'],
]);

/** The member id a request is confined to: a `member` token's own id; null when it sees the whole organization. */
export function confinedMemberId(request: FastifyRequest): string | null {
  const member = request.consoleMember;
  return member && member.role === 'member' ? member.id : null;
}

/**
 * Managing people (members, groups) needs an owner or admin: an organization-wide `admin` token,
 * or a member-bound token of an owner or admin (whose effective permission is `admin`).
 */
export function requireMemberManager(request: FastifyRequest): void {
  if (request.consoleToken.permission !== 'admin')
    throw new ConsoleError('forbidden', 'Managing members needs an owner or admin (or an admin console token).');
}

/** Granting, changing or removing the owner role needs an owner (or an organization-wide admin token). */
export function requireOwner(request: FastifyRequest): void {
  requireMemberManager(request);
  if (request.consoleMember && request.consoleMember.role !== 'owner')
    throw new ConsoleError('forbidden', 'Only an owner may grant, change or remove the owner role.');
}

/** Registered after authentication: confines `member` tokens to MEMBER_ROUTES. */
export function registerMemberScope(app: FastifyInstance): void {
  app.addHook('preValidation', async (request: FastifyRequest) => {
    const memberId = confinedMemberId(request);
    if (memberId === null) return;
    const scope = MEMBER_ROUTES.get(`${request.method} ${request.routeOptions.url ?? ''}`);
    if (!scope) throw new ConsoleError('forbidden', 'A member may use only its own keys, usage and profile.');
    if (scope !== 'own_usage') return;
    const query = request.query as Record<string, unknown>;
    if (query.member_id !== undefined && query.member_id !== memberId)
      throw new ConsoleError('forbidden', 'A member sees only its own usage.', 'member_id');
    query.member_id = memberId;
  });
}
