import type { FastifyInstance } from 'fastify';
import type { Static } from '@sinclair/typebox';
import type { DomainClaim } from '../../store/project-domains.js';
import { ConsoleError } from '../console-error.js';
import { dnsChallengeName, wellKnownUrl } from '../domains/challenge.js';
import {
  DomainParamsSchema,
  IdParamsSchema,
  VerifyDomainBodySchema,
  type DomainParams,
  type VerifyDomainBody,
} from '../schemas/console-collector.js';
import { loadProject } from './projects.js';
import type { ConsoleCollectorServices } from './console-collector-services.js';

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

export function presentDomain(claim: DomainClaim, httpsPort: number) {
  return {
    object: 'project_domain' as const,
    domain: claim.domain,
    project_id: claim.projectId,
    status: claim.verifiedAt === null ? ('pending' as const) : ('verified' as const),
    verification_method: claim.verificationMethod,
    created_at: iso(claim.createdAt),
    verified_at: iso(claim.verifiedAt),
    // How to prove control: either one is enough.
    verification: {
      token: claim.token,
      dns_record: { type: 'TXT' as const, name: dnsChallengeName(claim.domain), value: claim.token },
      well_known_url: wellKnownUrl(claim.domain, httpsPort),
    },
  };
}

const domainNotFound = () => new ConsoleError('not_found', 'No such domain in this project.');
const verifiedElsewhere = (domain: string) =>
  new ConsoleError('conflict', `The domain ${domain} is verified by another organization.`, 'domain');

/**
 * A project's domain claims and their ownership checks (docs/console-api.md, "Project
 * domains"). Claims are made and removed through the project's `domains`; here they are read
 * and verified. Verification is a write (POST), so read tokens get 403.
 */
export function registerProjectDomainRoutes(app: FastifyInstance, services: ConsoleCollectorServices): void {
  const { projectDomains, domainVerifier } = services;
  const port = services.domains.httpsPort;

  app.get<{ Params: Static<typeof IdParamsSchema> }>(
    '/v1/projects/:id/domains',
    { schema: { params: IdParamsSchema } },
    async (request) => {
      const project = await loadProject(services, request, request.params.id);
      const claims = await projectDomains.list(project.id);
      return {
        object: 'list',
        url: `/v1/projects/${project.id}/domains`,
        has_more: false,
        data: claims.map((c) => presentDomain(c, port)),
      };
    },
  );

  app.get<{ Params: DomainParams }>(
    '/v1/projects/:id/domains/:domain',
    { schema: { params: DomainParamsSchema } },
    async (request) => {
      const project = await loadProject(services, request, request.params.id);
      const claim = await projectDomains.get(project.id, request.params.domain);
      if (!claim) throw domainNotFound();
      return presentDomain(claim, port);
    },
  );

  app.post<{ Params: DomainParams; Body: VerifyDomainBody }>(
    '/v1/projects/:id/domains/:domain/verify',
    {
      schema: { params: DomainParamsSchema, body: VerifyDomainBodySchema },
      // The body is optional: a bodiless POST is `{}`, not a validation error.
      preValidation: async (request) => {
        request.body ??= {};
      },
    },
    async (request) => {
      const organizationId = request.consoleToken.organization_id;
      const project = await loadProject(services, request, request.params.id);
      const domain = request.params.domain;
      // A claim dropped because another organization verified the domain says so.
      const missing = async () =>
        (await projectDomains.verifiedElsewhere(organizationId, domain)) ? verifiedElsewhere(domain) : domainNotFound();
      const claim = await projectDomains.get(project.id, domain);
      if (!claim) throw await missing();
      if (claim.verifiedAt !== null) return presentDomain(claim, port);
      // Checked before any outbound request: a lost claim costs no DNS query or fetch.
      if (await projectDomains.verifiedElsewhere(organizationId, domain)) {
        await projectDomains.dropPending(organizationId, domain);
        throw verifiedElsewhere(domain);
      }
      const result = await domainVerifier.verify(domain, claim.token, request.body.method);
      if (!result.ok)
        throw new ConsoleError(
          'domain_not_verified',
          `The domain ${domain} could not be verified: ${result.reasons.join('; ')}.`,
        );
      const outcome = await projectDomains.markVerified(
        { organizationId, projectId: project.id, domain },
        result.method,
      );
      if (outcome.status === 'gone') throw domainNotFound();
      if (outcome.status === 'taken') throw verifiedElsewhere(domain);
      services.projectChanged(project.id);
      return presentDomain(outcome.claim, port);
    },
  );
}
