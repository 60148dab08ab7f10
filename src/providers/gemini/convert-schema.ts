/**
 * Gemini accepts an OpenAPI-3 subset of JSON Schema and rejects the request (400) on any other
 * keyword, e.g. `additionalProperties`, `$schema`, `$ref`, `const`. Only known keywords are kept;
 * `type: [T, "null"]` becomes `type: T, nullable: true` and `const` becomes a one-value enum.
 */
const SCHEMA_KEYWORDS = new Set([
  'type',
  'format',
  'description',
  'nullable',
  'enum',
  'properties',
  'required',
  'items',
  'anyOf',
  'minItems',
  'maxItems',
  'minimum',
  'maximum',
  'minLength',
  'maxLength',
  'pattern',
  'title',
  'propertyOrdering',
  'minProperties',
  'maxProperties',
]);

export function toGeminiSchema(schema: unknown): unknown {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) return schema;
  const input = schema as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(input)) {
    if (!SCHEMA_KEYWORDS.has(key)) continue;
    if (key === 'properties' && typeof value === 'object' && value !== null) {
      // Property names are user data, not keywords: keep every name, convert every value.
      out.properties = Object.fromEntries(Object.entries(value).map(([name, sub]) => [name, toGeminiSchema(sub)]));
    } else if (key === 'items') {
      out.items = toGeminiSchema(value);
    } else if (key === 'anyOf' && Array.isArray(value)) {
      out.anyOf = value.map(toGeminiSchema);
    } else if (key === 'type' && Array.isArray(value)) {
      const types = value.filter((t) => t !== 'null');
      if (types.length < value.length) out.nullable = true;
      if (types[0] !== undefined) out.type = types[0];
    } else {
      out[key] = value;
    }
  }
  if ('const' in input && out.enum === undefined) out.enum = [input.const];
  return out;
}

/** Gemini rejects an OBJECT schema with no properties, so a tool without parameters sends none. */
export function toGeminiParameters(
  parameters: Record<string, unknown> | undefined,
): Record<string, unknown> | undefined {
  if (!parameters) return undefined;
  const properties = parameters.properties;
  if (
    parameters.type === 'object' &&
    (typeof properties !== 'object' || properties === null || Object.keys(properties).length === 0)
  ) {
    return undefined;
  }
  return toGeminiSchema(parameters) as Record<string, unknown>;
}
