import { randomUUID } from 'node:crypto';
import { TypeCompiler, type TypeCheck } from '@sinclair/typebox/compiler';
import type { TSchema } from '@sinclair/typebox';
import type { StoredEvent } from '../store/collected-events.js';
import { PageDataSchema, TrackDataSchema, UserDataSchema, type CollectBody, type EventContext } from './event-schema.js';

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

/**
 * Turns a validated body into stored events: an id (the client's, or `evt_<uuid>`), the server
 * time, the merged context, and the data. A page event's data defaults to context.page and a
 * user event's to context.user, member by member, so a minimal `{type: 'page'}` is complete.
 */
export function buildEvents(body: CollectBody, now: number): StoredEvent[] {
  const timestamp = new Date(now).toISOString();
  return body.data_collection.events.map((incoming, i) => {
    const context = mergeContext(body.data_collection.context, incoming.context);
    const defaults = incoming.type === 'page' ? context.page : incoming.type === 'user' ? context.user : undefined;
    const data = { ...((defaults as Record<string, unknown> | undefined) ?? {}), ...(incoming.data ?? {}) };
    const check = DATA_CHECKS[incoming.type];
    if (!check.Check(data)) {
      const first = check.Errors(data).First();
      const path = `data_collection.events[${i}].data${(first?.path ?? '').replace(/\//g, '.')}`;
      throw new EventDataError(path, `Invalid ${path}: ${first?.message ?? 'invalid value'}.`);
    }
    return { id: incoming.id ?? `evt_${randomUUID().replace(/-/g, '')}`, type: incoming.type, timestamp, data, context };
  });
}
