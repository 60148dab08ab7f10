import { TypeCompiler, type TypeCheck } from '@sinclair/typebox/compiler';
import type { TSchema } from '@sinclair/typebox';
import { timeOrderedId, type IntakeEvent, type StoredEvent } from '../store/collected-events.js';
import {
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
const SECTIONS = ['client', 'campaign', 'page', 'user'] as const;

export class EventDataError extends Error {
  constructor(
    readonly param: string,
    message: string,
  ) {
    super(message);
  }
}

/** The request's context with the event's own context laid over it, section by section. */
function mergeContext(shared: EventContext | undefined, own: EventContext | undefined): Record<string, unknown> {
  const merged: Record<string, unknown> = {};
  for (const section of SECTIONS) {
    const value = { ...(shared?.[section] ?? {}), ...(own?.[section] ?? {}) };
    if (Object.keys(value).length > 0) merged[section] = value;
  }
  return merged;
}

interface MergedContext {
  value: Record<string, unknown>;
  json: string;
}

function merged(shared: EventContext | undefined, own: EventContext | undefined): MergedContext {
  const value = mergeContext(shared, own);
  return { value, json: JSON.stringify(value) };
}

/**
 * Turns a validated body into events ready to store: an id (the client's, or `evt_` and 32 hex
 * digits), the server time, the merged context, and the data, serialised once as the StoredEvent
 * JSON (members in StoredEvent order). A page event's data defaults to context.page and a user
 * event's to context.user, member by member, so a minimal `{type: 'page'}` is complete. Events
 * without a context of their own share the request's, merged and serialised once.
 */
export function buildEvents(body: CollectBody, now: number): IntakeEvent[] {
  const timestamp = JSON.stringify(new Date(now).toISOString());
  const shared = body.data_collection.context;
  let sharedContext: MergedContext | undefined;
  return body.data_collection.events.map((incoming, i) => {
    const context =
      incoming.context === undefined ? (sharedContext ??= merged(shared, undefined)) : merged(shared, incoming.context);
    const defaults = (
      incoming.type === 'page' ? context.value.page : incoming.type === 'user' ? context.value.user : undefined
    ) as Record<string, unknown> | undefined;
    const data = defaults === undefined ? (incoming.data ?? {}) : { ...defaults, ...incoming.data };
    const check = DATA_CHECKS[incoming.type];
    if (!check.Check(data)) {
      const first = check.Errors(data).First();
      const path = `data_collection.events[${i}].data${(first?.path ?? '').replace(/\//g, '.')}`;
      throw new EventDataError(path, `Invalid ${path}: ${first?.message ?? 'invalid value'}.`);
    }
    const idFromClient = incoming.id !== undefined;
    const id = incoming.id ?? `evt_${timeOrderedId(now)}`;
    const payload = `{"id":${JSON.stringify(id)},"type":"${incoming.type}","timestamp":${timestamp},"data":${JSON.stringify(data)},"context":${context.json}}`;
    return { id, idFromClient, type: incoming.type, payload };
  });
}
