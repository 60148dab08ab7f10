import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Store } from '../../store/database.js';
import { findConsoleTokenBySecret, type ConsoleToken } from '../../store/console-tokens.js';
import { digestSecret, digestsEqual } from '../../secrets/secret-codec.js';
import { ConsoleError } from '../console-error.js';
import { OrganizationMemberRepository } from '../../store/organization-members.js';

declare module 'fastify' {
  interface FastifyRequest {
    consoleToken: ConsoleToken;
  }
}

const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * Every console route needs a console token (gateway keys are a different system and are
 * refused here). A `read` token is refused on every write route (OWASP API5). A token bound to a
 * member (console_tokens.member_id) takes its permission from the member's current role: owner
 * and admin act as `admin`, member as `write` confined by auth/member-scope.ts.
 */
export function registerConsoleAuth(app: FastifyInstance, store: Store): void {
  app.decorateRequest('consoleToken', null as unknown as ConsoleToken);
  app.decorateRequest('consoleMember', null);
  const members = new OrganizationMemberRepository(store);
  app.addHook('onRequest', async (request: FastifyRequest) => {
    const header = request.headers.authorization;
    const match = typeof header === 'string' ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
    if (!match)
      throw new ConsoleError('unauthorized', 'Missing console token: send Authorization: Bearer <console token>.');
    const secret = match[1]!;
    const token = await findConsoleTokenBySecret(store, secret);
    if (!token || !digestsEqual(token.token_digest, digestSecret(secret)))
      throw new ConsoleError('unauthorized', 'Invalid console token.');
    if (token.expires_at !== null && token.expires_at <= Date.now())
      throw new ConsoleError('unauthorized', 'This console token has expired.');
    let effective = token;
    if (token.member_id) {
      // A member's token acts with the member's role as it is now, not as it was when signed in.
      const member = await members.get(token.organization_id, token.member_id);
      if (!member || member.status !== 'active')
        throw new ConsoleError('unauthorized', 'The member of this console token is no longer in the organization.');
      request.consoleMember = member;
      effective = { ...token, permission: member.role === 'member' ? 'write' : 'admin' };
    }
    if (effective.permission === 'read' && WRITE_METHODS.has(request.method)) {
      throw new ConsoleError('forbidden', 'This console token is read-only.');
    }
    request.consoleToken = effective;
  });
}

/**
 * Object-level authorization (OWASP API1), once for every organization route: a token acts
 * only inside its own organization. Any route whose path has an `:orgId` parameter is scoped
 * before its body is validated, so another organization learns nothing from a validation
 * error; a malformed path parameter is left to validation (a 400 naming it). Routes need not,
 * and do not, check it themselves. test/console/organization-scope.test.ts
 * calls every such route of the OpenAPI document with a foreign organization.
 */
export function registerOrganizationScope(app: FastifyInstance): void {
  app.addHook('preValidation', async (request: FastifyRequest) => {
    const orgId = (request.params as { orgId?: unknown } | undefined)?.orgId;
    if (orgId === undefined || request.consoleToken.organization_id === orgId) return;
    const validParams = request.getValidationFunction('params');
    if (validParams && !validParams(request.params)) return;
    throw new ConsoleError('forbidden', 'This console token does not belong to that organization.');
  });
}
