// Tool definitions are resent with every request. Only what cannot change how a model or a
// validator reads the schema goes: annotation keywords, redundant defaults, stray whitespace.
import type { ToolDefinition } from '../types.js';
import type { Strategy } from './strategy.js';

type Json = Record<string, unknown>;

const ANNOTATIONS = new Set(['$schema', '$comment', 'title', '$id']);
const SCHEMA_MAPS = new Set(['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas']);
const SCHEMA_LISTS = new Set(['anyOf', 'oneOf', 'allOf', 'prefixItems']);
const SCHEMA_ONE = new Set([
  'items',
  'additionalProperties',
  'not',
  'if',
  'then',
  'else',
  'contains',
  'propertyNames',
  'unevaluatedProperties',
]);

/** Trailing blanks, runs of blank lines and edge whitespace carry no meaning in prose. */
export function tidyText(text: string): string {
  return text
    .replace(/[ \t]+$/gm, '')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

function minifySchema(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(minifySchema);
  if (!node || typeof node !== 'object') return node;
  const out: Json = {};
  for (const [key, value] of Object.entries(node as Json)) {
    if (ANNOTATIONS.has(key) && typeof value !== 'object') continue;
    // `true` is JSON Schema's default for these: stating it changes nothing.
    if ((key === 'additionalProperties' || key === 'uniqueItems') && value === (key === 'additionalProperties'))
      continue;
    if (key === 'required' && Array.isArray(value) && value.length === 0) continue;
    if (key === 'description' && typeof value === 'string') {
      const tidy = tidyText(value);
      if (tidy.length > 0) out[key] = tidy;
      continue;
    }
    if (SCHEMA_MAPS.has(key) && value && typeof value === 'object' && !Array.isArray(value)) {
      out[key] = Object.fromEntries(Object.entries(value as Json).map(([k, v]) => [k, minifySchema(v)]));
    } else if (SCHEMA_LISTS.has(key) || SCHEMA_ONE.has(key)) {
      out[key] = minifySchema(value);
    } else {
      out[key] = value; // enum, const, default, examples…: data, not schema
    }
  }
  return out;
}

function reduce(tool: ToolDefinition): boolean {
  const description = tool.description === undefined ? undefined : tidyText(tool.description) || undefined;
  const parameters = tool.parameters === undefined ? undefined : minifySchema(tool.parameters);
  const same = description === tool.description && JSON.stringify(parameters) === JSON.stringify(tool.parameters);
  if (same) return false;
  tool.description = description;
  tool.parameters = parameters;
  tool.changed = true;
  return true;
}

export const toolSurfaceReduction: Strategy = {
  name: 'tool_surface_reduction',
  run(conversation) {
    let any = false;
    for (const tool of conversation.tools) any = reduce(tool) || any;
    return any;
  },
};
