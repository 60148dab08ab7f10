import { isServerTool, toolGroup } from '../tool-surface.js';
import type { Conversation, OutputEnvelope, ToolCallInfo, ToolDefinition, ToolResult } from '../types.js';
import { withEnvelope } from './content.js';

/** A converted request: the neutral view plus a writer that rebuilds the original shape. */
export interface FormatAdapter {
  conversation: Conversation;
  /** Returns the body with changed results and tools written back; untouched items are shared. */
  write(): Record<string, unknown>;
}

export function newResult(
  callId: string,
  call: ToolCallInfo | undefined,
  turn: number,
  text: string,
  editable: boolean,
  isError: boolean,
  item: number,
  envelope?: OutputEnvelope,
): ToolResult {
  const result: ToolResult = {
    callId,
    call,
    turn,
    item,
    original: text,
    text,
    editable,
    isError,
    changedBy: new Set(),
  };
  if (envelope) result.envelope = envelope;
  return result;
}

/** `text` as the result sends it (its envelope around it): what token counts of the request must count. */
export function sentText(result: ToolResult, text: string): string {
  return result.envelope ? withEnvelope(result.envelope, text) : text;
}

/** The result as it was received, envelope included. */
export function receivedText(result: ToolResult): string {
  const envelope = result.envelope;
  return envelope?.receivedPrefix !== undefined
    ? envelope.receivedPrefix + result.original + envelope.suffix
    : sentText(result, result.original);
}

export function newTool(
  name: string,
  description: unknown,
  parameters: unknown,
  raw: Record<string, unknown>,
  options: { namespace?: string; droppable?: boolean } = {},
): ToolDefinition {
  return {
    name,
    description: typeof description === 'string' ? description : undefined,
    parameters,
    raw,
    changed: false,
    group: toolGroup(name, options.namespace),
    // Only a server's tools (an MCP server, a namespace) are ever dropped, never the agent's own.
    droppable: (options.droppable ?? true) && isServerTool(name, options.namespace),
    dropped: false,
  };
}

/** The names the request's history calls and their groups, for the tool-surface decision. */
export class CalledTools {
  readonly names = new Set<string>();
  readonly groups = new Set<string>();
  add(name: string, namespace?: string): void {
    this.names.add(name);
    this.groups.add(toolGroup(name, namespace));
  }
}

/** Whether the writer must put the result back: its text changed, or its envelope's header did. */
export function changed(result: ToolResult): boolean {
  return result.editable && (result.text !== result.original || result.envelope?.receivedPrefix !== undefined);
}
