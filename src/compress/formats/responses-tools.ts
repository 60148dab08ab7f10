// Responses-style tool lists: the top-level `tools`, and the `tools` of an `additional_tools`
// input item (how Codex's newest models declare theirs). Function and custom tools become
// neutral definitions, also inside `namespace` tools; built-in tools (web_search…) and a
// custom tool's `format` grammar are not ours to rewrite.
import { check } from '../schemas.js';
import type { ToolDefinition } from '../types.js';
import { newTool } from './shared.js';

type Obj = Record<string, unknown>;

/** A definition and where it sits: indexes through the list and the namespaces around it. */
export interface PlacedTool {
  tool: ToolDefinition;
  path: number[];
}

/**
 * Reads the function and custom tools of `list` (named `at` in errors) into `into`. A tool inside
 * a namespace belongs to the namespace's group (tool-surface.ts).
 */
export function readToolList(
  list: Obj[],
  at: string,
  into: ToolDefinition[],
  path: number[] = [],
  namespace?: string,
): PlacedTool[] {
  const placed: PlacedTool[] = [];
  list.forEach((raw, i) => {
    const here = `${at}[${i}]`;
    check('ResponsesTool', raw, here);
    if (raw.type === 'namespace') {
      if (Array.isArray(raw.tools))
        placed.push(
          ...readToolList(
            raw.tools as Obj[],
            `${here}.tools`,
            into,
            [...path, i],
            typeof raw.name === 'string' ? raw.name : undefined,
          ),
        );
      return;
    }
    if (raw.type !== 'function' && raw.type !== 'custom') return;
    check('ResponsesNamedTool', raw, here);
    // A custom tool has no JSON schema: only its description is ever tidied.
    const tool = newTool(
      raw.name as string,
      raw.description,
      raw.type === 'function' ? raw.parameters : undefined,
      raw,
      namespace !== undefined ? { namespace } : {},
    );
    into.push(tool);
    placed.push({ tool, path: [...path, i] });
  });
  return placed;
}

function writeTool(t: ToolDefinition): Obj {
  const tool: Obj = { ...t.raw };
  if (t.description === undefined) delete tool.description;
  else tool.description = t.description;
  if (t.parameters !== undefined) tool.parameters = t.parameters;
  return tool;
}

/** Tool definitions in `list`, built-in ones included, those inside namespaces counted one by one. */
export function countToolList(list: unknown): number {
  if (!Array.isArray(list)) return 0;
  let n = 0;
  for (const raw of list as unknown[]) {
    const tool = raw as Obj | null;
    n += tool && tool.type === 'namespace' ? countToolList(tool.tools) : 1;
  }
  return n;
}

const DROPPED: Obj = Object.freeze({});

/**
 * `list` with the changed definitions written back and the dropped ones left out (copying only
 * the namespaces on their way; a namespace left empty goes too); undefined when none changed.
 */
export function writeToolList(list: Obj[], placed: PlacedTool[]): Obj[] | undefined {
  const changed = placed.filter((p) => p.tool.changed || p.tool.dropped);
  if (changed.length === 0) return undefined;
  const root = list.slice();
  const copies = new Set<Obj>();
  for (const { tool, path } of changed) {
    let level = root;
    for (const index of path.slice(0, -1)) {
      let namespace = level[index]!;
      if (!copies.has(namespace)) {
        namespace = { ...namespace, tools: (namespace.tools as Obj[]).slice() };
        copies.add(namespace);
        level[index] = namespace;
      }
      level = namespace.tools as Obj[];
    }
    level[path[path.length - 1]!] = tool.dropped ? DROPPED : writeTool(tool);
  }
  if (!placed.some((p) => p.tool.dropped)) return root;
  for (const namespace of copies) namespace.tools = (namespace.tools as Obj[]).filter((t) => t !== DROPPED);
  return root.filter((t) => t !== DROPPED && !(copies.has(t) && (t.tools as Obj[]).length === 0));
}
