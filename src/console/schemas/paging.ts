import { Type, type Static } from '@sinclair/typebox';

/**
 * List paging, Stripe style: `limit` (1–100, default 20) and `starting_after` = the last id
 * of the previous page; `last_key` is accepted as a synonym (it is what the list returns).
 * Querystrings arrive as text, so `limit` is a digit string.
 */
export const PagingQuerySchema = Type.Object(
  {
    limit: Type.Optional(Type.String({ pattern: '^(100|[1-9][0-9]?)$' })),
    starting_after: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    last_key: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  },
  { additionalProperties: false },
);
export type PagingQuery = Static<typeof PagingQuerySchema>;

export function paging(query: { limit?: string; starting_after?: string; last_key?: string }): {
  limit: number;
  startingAfter: string | undefined;
} {
  return {
    limit: query.limit === undefined ? 20 : Number(query.limit),
    startingAfter: query.starting_after ?? query.last_key,
  };
}

/** `{object: 'list', url, has_more, last_key, data}`; `last_key` is null on an empty page. */
export function listBody<T extends { id: string }>(url: string, data: T[], hasMore: boolean) {
  return {
    object: 'list' as const,
    url,
    has_more: hasMore,
    last_key: data.length > 0 ? data[data.length - 1]!.id : null,
    data,
  };
}
