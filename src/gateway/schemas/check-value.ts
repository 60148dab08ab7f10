import type { TSchema, Static } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { jsonPointerToParam } from '../../server/create-app.js';
import { GatewayError } from '../../pipeline/errors.js';

/**
 * Checks one value (a content block, an input item) against its TypeBox schema and fails with
 * `invalid_request` naming the exact field, e.g. `messages[2].content[0].source.data`.
 */
export function checkValue<T extends TSchema>(schema: T, value: unknown, param: string, what: string): Static<T> {
  if (Value.Check(schema, value)) return value as Static<T>;
  const first = Value.Errors(schema, value).First();
  const field = first ? jsonPointerToParam(first.path) : '';
  const at = !field ? param : field.startsWith('[') ? `${param}${field}` : `${param}.${field}`;
  throw new GatewayError('invalid_request', {
    message: `Invalid ${what} at ${at}: ${first?.message ?? 'invalid value'}.`,
    param: at,
  });
}
