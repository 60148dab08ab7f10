import { randomBytes } from 'node:crypto';
import type { Kysely, Transaction } from 'kysely';
import type { Store } from './database.js';
import type { Database, ProjectDomainsTable } from './schema.js';
import { isUniqueViolation } from './unique-violation.js';

/**
 * Domain claims of projects (migration 006). An organization claims a domain by naming it in a
 * project; the claim is pending until the organization proves control of the domain, then
 * verified. Pending claims of several organizations may coexist; at most one claim per domain
 * is verified (a partial unique index, so racing instances cannot both win), and the collector
 * serves only verified claims. Verifying drops the other organizations' pending claims.
 */
export type VerificationMethod = 'dns' | 'http' | 'development' | 'preexisting';

export interface DomainClaim {
  domain: string;
  organizationId: string;
  projectId: string;
  token: string;
  createdAt: number;
  verifiedAt: number | null;
  verificationMethod: VerificationMethod | null;
}

/** The value an organization publishes to prove control; not a secret (it ends up in public DNS). */
export function newVerificationToken(): string {
  return `gateway-verification=${randomBytes(24).toString('base64url')}`;
}

/** A claim the database refused: the domain's project, or another organization's verification, holds it. */
export class DomainClaimConflictError extends Error {
  constructor(
    readonly domain: string,
    message: string,
  ) {
    super(message);
  }
}

type Executor = Kysely<Database> | Transaction<Database>;

export function toClaim(row: ProjectDomainsTable): DomainClaim {
  return {
    domain: row.domain,
    organizationId: row.organization_id,
    projectId: row.project_id,
    token: row.token,
    createdAt: Number(row.created_at),
    verifiedAt: row.verified_at === null ? null : Number(row.verified_at),
    verificationMethod: row.verification_method as VerificationMethod | null,
  };
}

/**
 * Why `domains` cannot be claimed by `organizationId`'s project `projectId`, if a row says so:
 * another project of the same organization holds it, or another organization verified it.
 */
export async function findClaimConflict(
  db: Executor,
  organizationId: string,
  projectId: string,
  domains: readonly string[],
): Promise<DomainClaimConflictError | undefined> {
  if (domains.length === 0) return undefined;
  const rows = await db
    .selectFrom('project_domains')
    .select(['domain', 'organization_id', 'project_id', 'verified_at'])
    .where('domain', 'in', domains)
    .where((eb) => eb.or([eb('organization_id', '=', organizationId), eb('verified_at', 'is not', null)]))
    .orderBy('domain')
    .execute();
  for (const row of rows) {
    if (row.organization_id !== organizationId)
      return new DomainClaimConflictError(row.domain, `The domain ${row.domain} is verified by another organization.`);
    if (row.project_id !== projectId)
      return new DomainClaimConflictError(
        row.domain,
        `The domain ${row.domain} already belongs to another project of this organization.`,
      );
  }
  return undefined;
}

/**
 * Adds claims inside the caller's transaction. `preverified` domains (local names in
 * development mode) are verified at once, which also drops other organizations' pending
 * claims on them. Throws DomainClaimConflictError, or a unique violation when a racing
 * transaction took a domain after the check.
 */
export async function insertClaims(
  trx: Transaction<Database>,
  claim: { organizationId: string; projectId: string; domains: readonly string[] },
  preverified: (domain: string) => boolean,
): Promise<void> {
  if (claim.domains.length === 0) return;
  const conflict = await findClaimConflict(trx, claim.organizationId, claim.projectId, claim.domains);
  if (conflict) throw conflict;
  const now = Date.now();
  const rows: ProjectDomainsTable[] = claim.domains.map((domain) => {
    const verified = preverified(domain);
    return {
      domain,
      organization_id: claim.organizationId,
      project_id: claim.projectId,
      token: newVerificationToken(),
      created_at: now,
      verified_at: verified ? now : null,
      verification_method: verified ? 'development' : null,
    };
  });
  await trx.insertInto('project_domains').values(rows).execute();
  const won = rows.filter((r) => r.verified_at !== null).map((r) => r.domain);
  if (won.length > 0) await dropOtherClaims(trx, claim.organizationId, won);
}

async function dropOtherClaims(trx: Transaction<Database>, organizationId: string, domains: string[]): Promise<void> {
  await trx
    .deleteFrom('project_domains')
    .where('domain', 'in', domains)
    .where('organization_id', '!=', organizationId)
    .where('verified_at', 'is', null)
    .execute();
}

export type VerifyOutcome =
  | { status: 'verified'; claim: DomainClaim }
  /** The claim is gone (the project or the domain was removed meanwhile). */
  | { status: 'gone' }
  /** Another organization verified the domain first; this organization's claim was dropped. */
  | { status: 'taken' };

export class ProjectDomainRepository {
  constructor(private readonly store: Store) {}

  /** The project's claims, by domain. The caller has checked that the project is the organization's. */
  async list(projectId: string): Promise<DomainClaim[]> {
    const rows = await this.store.db
      .selectFrom('project_domains')
      .selectAll()
      .where('project_id', '=', projectId)
      .orderBy('domain')
      .execute();
    return rows.map(toClaim);
  }

  async get(projectId: string, domain: string): Promise<DomainClaim | undefined> {
    const row = await this.store.db
      .selectFrom('project_domains')
      .selectAll()
      .where('project_id', '=', projectId)
      .where('domain', '=', domain)
      .executeTakeFirst();
    return row && toClaim(row);
  }

  /** Whether an organization other than `organizationId` holds the verified claim on `domain`. */
  async verifiedElsewhere(organizationId: string, domain: string): Promise<boolean> {
    const row = await this.store.db
      .selectFrom('project_domains')
      .select('organization_id')
      .where('domain', '=', domain)
      .where('verified_at', 'is not', null)
      .where('organization_id', '!=', organizationId)
      .executeTakeFirst();
    return row !== undefined;
  }

  /**
   * Records a successful ownership check. The winner takes the domain: other organizations'
   * pending claims are dropped in the same transaction. If another organization's verification
   * committed first, the unique index refuses this one, and this organization's claim is
   * dropped instead.
   */
  async markVerified(
    claim: { organizationId: string; projectId: string; domain: string },
    method: VerificationMethod,
  ): Promise<VerifyOutcome> {
    try {
      return await this.store.db.transaction().execute(async (trx): Promise<VerifyOutcome> => {
        // PostgreSQL: lock every claim on the domain, in one order, before writing. Without it two
        // verifications deadlock: each updates its own row, then waits on the other's unique
        // index entry while the other waits to delete its row. SQLite has one writer at a time.
        if (this.store.dialect === 'postgres')
          await trx
            .selectFrom('project_domains')
            .select('organization_id')
            .where('domain', '=', claim.domain)
            .orderBy('organization_id')
            .forUpdate()
            .execute();
        const now = Date.now();
        const updated = await trx
          .updateTable('project_domains')
          .set({ verified_at: now, verification_method: method })
          .where('domain', '=', claim.domain)
          .where('organization_id', '=', claim.organizationId)
          .where('project_id', '=', claim.projectId)
          .where('verified_at', 'is', null)
          .executeTakeFirst();
        if (Number(updated.numUpdatedRows) > 0) await dropOtherClaims(trx, claim.organizationId, [claim.domain]);
        const row = await trx
          .selectFrom('project_domains')
          .selectAll()
          .where('domain', '=', claim.domain)
          .where('organization_id', '=', claim.organizationId)
          .where('project_id', '=', claim.projectId)
          .executeTakeFirst();
        if (!row) {
          // Dropped by the other organization's verification, which committed first.
          const winner = await trx
            .selectFrom('project_domains')
            .select('organization_id')
            .where('domain', '=', claim.domain)
            .where('verified_at', 'is not', null)
            .where('organization_id', '!=', claim.organizationId)
            .executeTakeFirst();
          return winner ? { status: 'taken' } : { status: 'gone' };
        }
        if (row.verified_at === null) return { status: 'taken' };
        return { status: 'verified', claim: toClaim(row) };
      });
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
      await this.store.db
        .deleteFrom('project_domains')
        .where('domain', '=', claim.domain)
        .where('organization_id', '=', claim.organizationId)
        .where('verified_at', 'is', null)
        .execute();
      return { status: 'taken' };
    }
  }

  /** Drops this organization's pending claim (another organization holds the verified one). */
  async dropPending(organizationId: string, domain: string): Promise<void> {
    await this.store.db
      .deleteFrom('project_domains')
      .where('domain', '=', domain)
      .where('organization_id', '=', organizationId)
      .where('verified_at', 'is', null)
      .execute();
  }
}
