import { TypeCompiler, type TypeCheck } from '@sinclair/typebox/compiler';
import type { TSchema } from '@sinclair/typebox';
import { timeOrderedId, type IntakeEvent, type StoredEvent } from '../store/collected-events.js';
import { CollectorError } from './collector-errors.js';
import {
  KNOWN_BODY_MEMBERS,
  KNOWN_COLLECTION_MEMBERS,
  KNOWN_EVENT_MEMBERS,
  PageDataSchema,
  TrackDataSchema,
  UserDataSchema,
  type CollectBody,
  type EventContext,
} from './event-schema.js';

/** Compiled once: the per-event check is on the collector's hot path. */
const DATA_CHECKS: Record<StoredEvent['type'], TypeCheck<TSchema>> = {
  page: TypeCompiler.Compile(PageDataSchema),
  track: TypeCompiler.Compile(TrackDataSchema),
  user: TypeCompiler.Compile(UserDataSchema),
};

/**
 * Names the stored event (or the console's view of it) sets itself. A member the client sent
 * under one of them, outside the place where it is defined (an event's `timestamp`, a
 * `data_collection.type`), is kept under `client_members` instead of replacing the server's.
 */
const SERVER_MEMBERS: ReadonlySet<string> = new Set([
  'id',
  'type',
  'timestamp',
  'data',
  'context',
  'client_members',
  'object',
  'project_component_id',
  'received_at',
  'stored_at',
]);

type Members = Record<string, unknown>;

const isPlainObject = (value: unknown): value is Members =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The request's context with the event's own laid over it, member by member: an object member
 * (the sections `client`, `campaign`, `page`, `user`, and any section an SDK adds, such as
 * `session`) is merged one level deep; any other value of the event's replaces the request's.
 */
function mergeContext(shared: EventContext | undefined, own: EventContext | undefined): Members {
  // No prototype: a client's key, whatever its name, is only ever an own member.
  const merged: Members = Object.create(null) as Members;
  for (const source of [shared, own] as Array<Members | undefined>) {
    if (source === undefined) continue;
    for (const key of Object.keys(source)) {
      const value = source[key];
      const before = merged[key];
      merged[key] = isPlainObject(before) && isPlainObject(value) ? { ...before, ...value } : value;
    }
  }
  // An empty section says nothing: left out, as before unknown sections were kept.
  for (const key of Object.keys(merged)) {
    const value = merged[key];
    if (isPlainObject(value) && Object.keys(value).length === 0) delete merged[key];
  }
  return merged;
}

interface MergedContext {
  value: Members;
  json: string;
}

function merged(shared: EventContext | undefined, own: EventContext | undefined): MergedContext {
  const value = mergeContext(shared, own);
  return { value, json: JSON.stringify(value) };
}

/** The members of `object` that `known` does not define, in their order; undefined when there are none. */
function unknownMembers(object: Members, known: ReadonlySet<string>): Members | undefined {
  let found: Members | undefined;
  for (const key of Object.keys(object)) {
    if (known.has(key)) continue;
    (found ??= Object.create(null) as Members)[key] = object[key];
  }
  return found;
}

/**
 * `,"name":value…` for the kept members, with `client_members` holding those whose names the
 * server sets; empty when there are none.
 */
function keptMembersJson(members: Members | undefined): string {
  if (members === undefined) return '';
  let json = '';
  let shadowed: Members | undefined;
  for (const key of Object.keys(members)) {
    const value = members[key];
    if (value === undefined) continue;
    if (SERVER_MEMBERS.has(key)) (shadowed ??= Object.create(null) as Members)[key] = value;
    else json += `,${JSON.stringify(key)}:${JSON.stringify(value)}`;
  }
  if (shadowed !== undefined) json += `,"client_members":${JSON.stringify(shadowed)}`;
  return json;
}

export interface BuildLimits {
  /** UTF-8 bytes of one stored event. */
  maxEventBytes: number;
}

/**
 * Turns a validated body into events ready to store: an id (the client's, or `evt_` and 32 hex
 * digits), the server time, the merged context, the data, then every member the schema does not
 * define, serialised once as the StoredEvent JSON (members in StoredEvent order). A page event's
 * data defaults to context.page and a user event's to context.user, member by member, so a
 * minimal `{type: 'page'}` is complete. Members the body or `data_collection` carry besides
 * `data_collection`, `events` and `context` (Edgee's `consent` and `components`, a batch's
 * `sent_at`) apply to each event that does not carry a member of that name itself, the way the
 * request's context does. Events without a context or members of their own share the
 * request's, merged and serialised once. An event whose JSON exceeds `maxEventBytes` refuses the
 * whole request (nothing is stored).
 */
export function buildEvents(body: CollectBody, now: number, limits: BuildLimits): IntakeEvent[] {
  const timestamp = JSON.stringify(new Date(now).toISOString());
  const collection = body.data_collection;
  const shared = collection.context;
  const sharedMembers = inheritedMembers(body as Members, collection as Members);
  let sharedContext: MergedContext | undefined;
  let sharedMembersJson: string | undefined;
  return collection.events.map((incoming, i) => {
    const context =
      incoming.context === undefined ? (sharedContext ??= merged(shared, undefined)) : merged(shared, incoming.context);
    const defaults = (
      incoming.type === 'page' ? context.value.page : incoming.type === 'user' ? context.value.user : undefined
    ) as Members | undefined;
    const data = defaults === undefined ? (incoming.data ?? {}) : { ...defaults, ...incoming.data };
    const check = DATA_CHECKS[incoming.type];
    if (!check.Check(data)) {
      const first = check.Errors(data).First();
      const path = `data_collection.events[${i}].data${(first?.path ?? '').replace(/\//g, '.')}`;
      throw new CollectorError('invalid_event', {
        param: path,
        message: `Invalid ${path}: ${first?.message ?? 'invalid value'}.`,
      });
    }
    const own = unknownMembers(incoming as Members, KNOWN_EVENT_MEMBERS);
    const members =
      own === undefined
        ? (sharedMembersJson ??= keptMembersJson(sharedMembers))
        : keptMembersJson(sharedMembers === undefined ? own : { ...sharedMembers, ...own });
    const idFromClient = incoming.id !== undefined;
    const id = incoming.id ?? `evt_${timeOrderedId(now)}`;
    const payload = `{"id":${JSON.stringify(id)},"type":"${incoming.type}","timestamp":${timestamp},"data":${JSON.stringify(data)},"context":${context.json}${members}}`;
    // The UTF-8 size is what the quota counts, so it is measured for every event.
    const bytes = Buffer.byteLength(payload);
    if (bytes > limits.maxEventBytes) {
      const param = `data_collection.events[${i}]`;
      throw new CollectorError('event_too_large', {
        param,
        message: `${param} is ${bytes} bytes once stored (its data, merged context and other members); the limit is ${limits.maxEventBytes} bytes.`,
      });
    }
    return { id, idFromClient, type: incoming.type, payload, bytes };
  });
}

/** The body's and data_collection's own members, data_collection's winning; undefined when there are none. */
function inheritedMembers(body: Members, collection: Members): Members | undefined {
  const outer = unknownMembers(body, KNOWN_BODY_MEMBERS);
  const inner = unknownMembers(collection, KNOWN_COLLECTION_MEMBERS);
  if (outer === undefined) return inner;
  if (inner === undefined) return outer;
  return { ...outer, ...inner };
}
