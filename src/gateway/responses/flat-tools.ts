import type { ResponsesRequest } from './responses-schema.js';

/**
 * Codex declares its tools in `namespace`s (`functions`, `clock`, `collaboration`), some of them
 * `custom` (free-form input, e.g. JavaScript for its `exec` tool), and its newest models send
 * them as an `additional_tools` input item rather than in `tools`. Providers other than OpenAI
 * know only flat function tools, so each tool gets a flat name: its own name when no other tool
 * has it, else `{namespace}__{name}`. The same names are computed from the same request when
 * the answer is formatted, so a call of a flat name goes back to the client as the tool it
 * declared: a `custom_tool_call` with its `input`, or a `function_call` with its `namespace`.
 */
export interface ToolOrigin {
  name: string;
  namespace?: string;
  kind: 'function' | 'custom';
}

type RawTool = Record<string, unknown>;

/** A declared tool with where it was declared (for error params) and its namespace. */
export interface DeclaredTool {
  tool: RawTool;
  param: string;
  namespace?: string;
}

/** Every tool of the request in declaration order: `tools` first, then each `additional_tools` item's. */
export function declaredTools(body: Pick<ResponsesRequest, 'tools' | 'input'>): DeclaredTool[] {
  const out: DeclaredTool[] = [];
  const walk = (tools: unknown, param: string, namespace?: string): void => {
    if (!Array.isArray(tools)) return;
    tools.forEach((tool: unknown, i) => {
      if (!tool || typeof tool !== 'object') return;
      const raw = tool as RawTool;
      const at = `${param}[${i}]`;
      if (raw.type === 'namespace' && namespace === undefined && typeof raw.name === 'string')
        walk(raw.tools, `${at}.tools`, raw.name);
      else out.push({ tool: raw, param: at, ...(namespace !== undefined ? { namespace } : {}) });
    });
  };
  walk(body.tools, 'tools');
  if (Array.isArray(body.input))
    body.input.forEach((item, k) => {
      if (item.type === 'additional_tools') walk((item as RawTool).tools, `input[${k}].tools`);
    });
  return out;
}

/** Flat names ↔ declared tools, for function and custom tools. */
export class FlatTools {
  private readonly byFlat = new Map<string, ToolOrigin>();
  private readonly toFlat = new Map<string, string>();

  constructor(declared: DeclaredTool[]) {
    const callable = declared.filter(
      (d) => (d.tool.type === 'function' || d.tool.type === 'custom') && typeof d.tool.name === 'string',
    );
    const count = new Map<string, number>();
    for (const d of callable) count.set(d.tool.name as string, (count.get(d.tool.name as string) ?? 0) + 1);
    for (const d of callable) {
      const name = d.tool.name as string;
      const flat = (count.get(name) ?? 0) > 1 && d.namespace ? `${d.namespace}__${name}` : name;
      const origin: ToolOrigin = { name, kind: d.tool.type as ToolOrigin['kind'] };
      if (d.namespace !== undefined) origin.namespace = d.namespace;
      this.byFlat.set(flat, origin);
      this.toFlat.set(key(name, d.namespace), flat);
    }
  }

  static of(body: Pick<ResponsesRequest, 'tools' | 'input'>): FlatTools {
    return new FlatTools(declaredTools(body));
  }

  /** The flat name of a declared tool (its own name when it was not declared). */
  flatName(name: string, namespace?: string): string {
    return this.toFlat.get(key(name, namespace)) ?? this.toFlat.get(key(name, undefined)) ?? name;
  }

  /** The tool a flat name stands for; undefined for names the request did not declare. */
  origin(flatName: string): ToolOrigin | undefined {
    return this.byFlat.get(flatName);
  }

  /** Whether any call needs mapping back (a custom tool or a namespaced one). */
  get needsMapping(): boolean {
    for (const origin of this.byFlat.values()) if (origin.kind === 'custom' || origin.namespace) return true;
    return false;
  }
}

function key(name: string, namespace: string | undefined): string {
  return `${namespace ?? ''}\u0000${name}`;
}

/**
 * The free-form input of a custom tool, from the arguments a provider produced for the flat
 * function (`{"input": "…"}`); the raw arguments when they are not that shape.
 */
export function customInput(argumentsJson: string): string {
  try {
    const parsed: unknown = JSON.parse(argumentsJson);
    if (parsed && typeof parsed === 'object' && typeof (parsed as { input?: unknown }).input === 'string')
      return (parsed as { input: string }).input;
  } catch {
    // not JSON: the provider wrote the input itself
  }
  return argumentsJson;
}
