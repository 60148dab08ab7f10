import { isRecord } from './json-fallback.js';

/** A function tool in any of the three request shapes, reduced to what the model is shown. */
export interface FunctionDefinition {
  name: string;
  description?: string;
  parameters?: Record<string, unknown>;
}

/**
 * Reads a tool in the chat (`{type:'function', function:{…}}`) or responses-style (flat
 * `{type:'function', name, …}`) shape; undefined for anything else (messages-style tools,
 * server tools, unknown types), which the caller counts another way.
 */
export function toFunctionDefinition(tool: unknown): FunctionDefinition | undefined {
  if (!isRecord(tool) || isMessagesStyleTool(tool)) return undefined;
  const fn = isRecord(tool.function) ? tool.function : tool;
  if (typeof fn.name !== 'string') return undefined;
  if (tool.type !== undefined && tool.type !== 'function' && tool.type !== 'custom') return undefined;
  const schema = fn.parameters ?? fn.input_schema;
  return {
    name: fn.name,
    ...(typeof fn.description === 'string' ? { description: fn.description } : {}),
    ...(isRecord(schema) ? { parameters: schema } : {}),
  };
}

/**
 * OpenAI shows function tools to the model as a TypeScript namespace, not as JSON schema; the
 * rendering below is the widely used reconstruction of it (hmarr/openai-chat-tokens), which
 * matches the API's prompt_tokens to within a few tokens.
 */
export function renderFunctionDefinitions(functions: readonly FunctionDefinition[]): string {
  const lines = ['namespace functions {', ''];
  for (const fn of functions) {
    if (fn.description) lines.push(`// ${fn.description}`);
    const properties = fn.parameters && isRecord(fn.parameters.properties) ? fn.parameters.properties : {};
    if (Object.keys(properties).length > 0 && fn.parameters) {
      lines.push(`type ${fn.name} = (_: {`, renderProperties(fn.parameters, 0), '}) => any;');
    } else {
      lines.push(`type ${fn.name} = () => any;`);
    }
    lines.push('');
  }
  lines.push('} // namespace functions');
  return lines.join('\n');
}

function renderProperties(schema: Record<string, unknown>, indent: number): string {
  const properties = isRecord(schema.properties) ? schema.properties : {};
  const required = Array.isArray(schema.required) ? schema.required : [];
  const lines: string[] = [];
  for (const [name, property] of Object.entries(properties)) {
    const prop = isRecord(property) ? property : {};
    if (typeof prop.description === 'string' && indent < 2) lines.push(`// ${prop.description}`);
    const optional = required.includes(name) ? '' : '?';
    lines.push(`${name}${optional}: ${renderType(prop, indent)},`);
  }
  const pad = ' '.repeat(indent);
  return lines.map((line) => pad + line).join('\n');
}

function renderType(schema: Record<string, unknown>, indent: number): string {
  const literals = Array.isArray(schema.enum) ? schema.enum : undefined;
  switch (schema.type) {
    case 'string':
      return literals ? literals.map((v) => JSON.stringify(v)).join(' | ') : 'string';
    case 'number':
    case 'integer':
      return literals ? literals.map((v) => String(v)).join(' | ') : 'number';
    case 'boolean':
      return 'boolean';
    case 'null':
      return 'null';
    case 'object':
      return ['{', renderProperties(schema, indent + 2), '}'].join('\n');
    case 'array':
      return isRecord(schema.items) ? `${renderType(schema.items, indent)}[]` : 'any[]';
    default:
      return 'any';
  }
}

/** A client tool in Anthropic's shape: `{name, description?, input_schema}`, type absent or `custom`. */
export function isMessagesStyleTool(tool: Record<string, unknown>): boolean {
  return (
    typeof tool.name === 'string' &&
    isRecord(tool.input_schema) &&
    tool.function === undefined &&
    (tool.type === undefined || tool.type === 'custom')
  );
}

/**
 * Anthropic shows client tools to the model as JSON, the whole `input_schema` included (its
 * `$schema`, `additionalProperties`, …, which the TypeScript rendering leaves out), one
 * `<function>` element per tool: the layout of its published tool-use prompt. Counting the
 * same text is what makes compression's savings on Claude Code's tool definitions show.
 */
export function renderAnthropicToolDefinitions(tools: readonly Record<string, unknown>[]): string {
  const lines = ['<functions>'];
  for (const tool of tools) {
    const shown: Record<string, unknown> = {};
    if (typeof tool.description === 'string') shown.description = tool.description;
    shown.name = tool.name;
    shown.parameters = tool.input_schema;
    lines.push(`<function>${JSON.stringify(shown)}</function>`);
  }
  lines.push('</functions>');
  return lines.join('\n');
}
