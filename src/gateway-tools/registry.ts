import type { Tool } from '../canonical/chat-request.js';
import type { GatewayTool } from './types.js';
import { currentTimeTool } from './tools/current-time.js';
import { generateUuidTool } from './tools/generate-uuid.js';
import { calculatorTool } from './tools/calculator.js';

/** Every built-in tool. Adding one: a module under tools/, one line here, and its test. */
const BUILT_IN_TOOLS: GatewayTool[] = [currentTimeTool, generateUuidTool, calculatorTool];

export const GATEWAY_TOOL_ID_PATTERN = /^gateway_[a-z0-9_]{1,56}$/;

/** Tool id → tool. `register`/`unregister` exist for tests (a slow or failing tool); production uses the built-ins. */
export class GatewayToolRegistry {
  private readonly tools = new Map<string, GatewayTool>();

  constructor(tools: GatewayTool[]) {
    for (const tool of tools) this.register(tool);
  }

  register(tool: GatewayTool): void {
    if (!GATEWAY_TOOL_ID_PATTERN.test(tool.id))
      throw new Error(`gateway tool id "${tool.id}" must match ${GATEWAY_TOOL_ID_PATTERN}`);
    if (this.tools.has(tool.id)) throw new Error(`gateway tool "${tool.id}" is registered twice`);
    this.tools.set(tool.id, tool);
  }

  unregister(id: string): void {
    this.tools.delete(id);
  }

  get(id: string): GatewayTool | undefined {
    return this.tools.get(id);
  }

  has(id: string): boolean {
    return this.tools.has(id);
  }

  list(): GatewayTool[] {
    return [...this.tools.values()];
  }
}

export const gatewayToolRegistry = new GatewayToolRegistry(BUILT_IN_TOOLS);

/** The tool as the model sees it: a plain function tool (TypeBox's symbol keys dropped). */
export function toFunctionTool(tool: GatewayTool): Tool {
  return {
    type: 'function',
    function: {
      name: tool.id,
      description: tool.description,
      parameters: JSON.parse(JSON.stringify(tool.parameters)) as Record<string, unknown>,
    },
  };
}
