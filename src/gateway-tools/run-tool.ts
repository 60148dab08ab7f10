import { Value } from '@sinclair/typebox/value';
import { DEFAULT_TOOL_TIMEOUT_MS, ToolFailure, type GatewayTool } from './types.js';

export interface ToolOutcome {
  success: boolean;
  /** What goes back to the model as the tool message's content (JSON text). */
  content: string;
  error?: string;
  durationMs: number;
}

const MAX_RESULT_CHARS = 32_000;

/**
 * Runs one tool call: parses and validates the arguments against the tool's schema, then runs
 * the handler under its time limit. Never throws: every failure (bad arguments, a thrown error,
 * the time limit, the client leaving) becomes `success: false` with `{"error": …}` for the model.
 */
export async function runGatewayTool(
  tool: GatewayTool,
  rawArguments: string,
  options: { signal?: AbortSignal; now?: () => number } = {},
): Promise<ToolOutcome> {
  const started = performance.now();
  const finish = (outcome: { success: true; result: unknown } | { success: false; error: string }): ToolOutcome => {
    const durationMs = Math.round(performance.now() - started);
    if (!outcome.success)
      return { success: false, content: JSON.stringify({ error: outcome.error }), error: outcome.error, durationMs };
    const content = JSON.stringify(outcome.result ?? null);
    if (content.length > MAX_RESULT_CHARS) {
      const error = `The tool result is larger than ${MAX_RESULT_CHARS} characters.`;
      return { success: false, content: JSON.stringify({ error }), error, durationMs };
    }
    return { success: true, content, durationMs };
  };

  let args: unknown;
  try {
    args = rawArguments.trim() === '' ? {} : JSON.parse(rawArguments);
  } catch {
    return finish({ success: false, error: 'The arguments are not valid JSON.' });
  }
  if (!Value.Check(tool.parameters, args)) {
    const first = Value.Errors(tool.parameters, args).First();
    const where = first?.path ? ` at ${first.path}` : '';
    return finish({
      success: false,
      error: `Invalid arguments${where}: ${first?.message ?? 'they do not match the schema'}.`,
    });
  }

  const timeoutMs = tool.timeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS;
  const controller = new AbortController();
  const onAbort = () => controller.abort(options.signal?.reason);
  options.signal?.addEventListener('abort', onAbort, { once: true });
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const error = new ToolFailure(`The tool did not finish within ${timeoutMs} ms.`);
      reject(error);
      controller.abort(error);
    }, timeoutMs);
    controller.signal.addEventListener('abort', () => reject(new ToolFailure('The request was cancelled.')), {
      once: true,
    });
  });
  try {
    const result = await Promise.race([
      Promise.resolve().then(() => tool.run(args, { signal: controller.signal, now: options.now ?? Date.now })),
      limit,
    ]);
    return finish({ success: true, result });
  } catch (error) {
    // A ToolFailure is written for the model; any other error's message may hold internals.
    const message = error instanceof ToolFailure ? error.message : 'The tool failed.';
    return finish({ success: false, error: message });
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener('abort', onAbort);
    limit.catch(() => undefined);
  }
}
