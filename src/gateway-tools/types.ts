import type { TSchema } from '@sinclair/typebox';

/** What a tool's handler gets besides its (already validated) arguments. */
export interface ToolContext {
  /** Fires when the tool's time limit passes or the client goes away; long handlers should stop. */
  signal: AbortSignal;
  now: () => number;
}

/**
 * A built-in gateway tool: one module each under `tools/`, listed once in `registry.ts`.
 * The model sees it as a function tool named `id`, with `description` and `parameters`.
 */
// The registry holds tools of different argument types side by side; each tool's own code is typed.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export interface GatewayTool<Args = any> {
  /** Also the function name the model calls; must start with `gateway_`. */
  id: string;
  description: string;
  /** JSON schema of the arguments (a TypeBox schema); checked before the handler runs. */
  parameters: TSchema;
  /** Default 2 000 ms. */
  timeoutMs?: number;
  /** Returns a JSON-serialisable result; throws ToolFailure (or anything) to report a failure to the model. */
  run(args: Args, context: ToolContext): unknown | Promise<unknown>;
}

/** A failure the model should read: its message goes back verbatim in the tool result. */
export class ToolFailure extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ToolFailure';
  }
}

export const DEFAULT_TOOL_TIMEOUT_MS = 2_000;
