import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Settings } from '../config/settings.js';
import { openStore } from '../store/database.js';
import { ensureOrganization } from '../store/organizations.js';
import { ApiKeyRepository, type ApiKey } from '../store/api-keys.js';
import { loadMasterKeys, masterKeySource } from '../secrets/master-key.js';
import { Keyring } from '../secrets/keyring.js';
import { ASSISTANT_OF, type ClientName } from './client-profiles.js';
import type { Store } from '../store/database.js';
import { launchMember } from './launch-member.js';

const SLUG = /^[a-z0-9][a-z0-9-]{0,62}$/;

/**
 * Which key `gateway launch` made for each organization and agent: ids only. The secret stays
 * sealed in the store by the master key (as every key is) and is revealed from there, so this
 * file holds nothing a reader could call the gateway with.
 */
export const LAUNCH_KEYS_FILE = 'launch-keys.json';

export interface ClientKey {
  id: string;
  organizationId: string;
  secret: string;
  /** Whether an earlier `gateway launch` made it. */
  reused: boolean;
  /** The member who owns it (launch); null: the organization's own key. */
  member?: { id: string; email: string } | null;
}

interface KeyRequest {
  client: ClientName;
  /** Organization slug, created when absent. */
  org: string;
  compression: boolean;
  /** The command making it, named in the key's name so the console shows where it came from. */
  via: 'connect' | 'launch';
  /** The member who owns the key (launch resolves it: launch-member.ts). */
  memberId?: string | null;
}

/** Who a launch key is for: `--member`, else `git config user.email` (launch-member.ts). */
export interface LaunchMemberInput {
  member?: string | undefined;
  gitEmail?: string | undefined;
}

export function checkSlug(slug: string): void {
  if (!SLUG.test(slug))
    throw new Error('--org must be a slug: lowercase letters, digits and dashes, at most 63 characters');
}

/** A new key for the client, in the organization (made if absent), like `admin bootstrap` makes tokens. */
export function createClientKey(settings: Settings, request: KeyRequest): Promise<ClientKey> {
  checkSlug(request.org);
  return withKeys(settings, request.org, async (keys, organizationId) =>
    created(await create(keys, organizationId, request)),
  );
}

/**
 * The key an earlier `gateway launch` of this agent and organization made, when it is still
 * usable (not deleted, disabled or expired); else a new one, recorded for the next launch.
 */
export function launchKey(
  settings: Settings,
  request: Omit<KeyRequest, 'via' | 'memberId'> & LaunchMemberInput,
): Promise<ClientKey> {
  checkSlug(request.org);
  return withKeys(settings, request.org, async (keys, organizationId, store) => {
    const member = await launchMember(store, organizationId, request.member, request.gitEmail);
    const memberId = member?.id ?? null;
    const owner = member && { id: member.id, email: member.email };
    const records = readLaunchKeys(settings.dataDir);
    // One key per organization, agent and member: two people launching from one data dir keep theirs apart.
    const slot = `${request.org}/${request.client}${memberId ? `/${memberId}` : ''}`;
    const recorded = records[slot];
    const earlier = recorded ? await keys.reveal(organizationId, recorded) : undefined;
    if (earlier && usable(earlier.apiKey) && earlier.apiKey.memberId === memberId)
      return { id: earlier.apiKey.id, organizationId, secret: earlier.secret, reused: true, member: owner };
    const made = created(await create(keys, organizationId, { ...request, via: 'launch', memberId }));
    writeLaunchKeys(settings.dataDir, { ...records, [slot]: made.id });
    return { ...made, member: owner };
  });
}

function usable(key: ApiKey): boolean {
  return key.active && (key.expiresAt === null || key.expiresAt > Date.now());
}

function created(made: { apiKey: ApiKey; secret: string }): ClientKey {
  return { id: made.apiKey.id, organizationId: made.apiKey.organizationId, secret: made.secret, reused: false };
}

async function withKeys<T>(
  settings: Settings,
  slug: string,
  use: (keys: ApiKeyRepository, organizationId: string, store: Store) => Promise<T>,
): Promise<T> {
  const store = await openStore({
    dataDir: settings.dataDir,
    databaseUrl: settings.databaseUrl,
    schema: settings.databaseSchema,
  });
  try {
    const { organization } = await ensureOrganization(store, slug, slug);
    return await use(
      new ApiKeyRepository(store, new Keyring(loadMasterKeys(masterKeySource(settings)))),
      organization.id,
      store,
    );
  } finally {
    await store.close();
  }
}

function create(
  keys: ApiKeyRepository,
  organizationId: string,
  request: KeyRequest,
): Promise<{ apiKey: ApiKey; secret: string }> {
  const assistant = ASSISTANT_OF[request.client];
  return keys.create({
    organizationId,
    name: `${request.client} (gateway ${request.via}, ${new Date().toISOString().slice(0, 10)})`,
    type: assistant ? 'coding_agent' : 'api',
    codingAssistant: assistant ?? null,
    models: [],
    maxUsageUsd: null,
    expiresInDays: null,
    email: null,
    debugMode: false,
    compression: request.compression,
    memberId: request.memberId ?? null,
  });
}

function readLaunchKeys(dataDir: string): Record<string, string> {
  const file = join(dataDir, LAUNCH_KEYS_FILE);
  if (!existsSync(file)) return {};
  try {
    const parsed: unknown = JSON.parse(readFileSync(file, 'utf8'));
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, string>) : {};
  } catch {
    // A damaged record only costs a new key.
    return {};
  }
}

/** Written whole and renamed into place: two launches at once leave one complete record, never a torn one. */
function writeLaunchKeys(dataDir: string, records: Record<string, string>): void {
  mkdirSync(dataDir, { recursive: true });
  const file = join(dataDir, LAUNCH_KEYS_FILE);
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, JSON.stringify(records, null, 2) + '\n', { mode: 0o600 });
  renameSync(temporary, file);
}
