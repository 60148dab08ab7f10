import { join } from 'node:path';
import type { MockScenario, MockToolCall, RecordedRequest } from '../mock-upstreams/index.js';

/** The file every agent is asked to read; its content proves the tool result reached the model. */
export const PROBE_FILE = 'gateway-probe.txt';
export const PROBE_CONTENT = 'probe-content-7f3a9c';
export const FINAL_PREFIX = 'Round trip done:';

type Json = Record<string, any>;

/** Names of the tools a request offers, across the three wire formats (namespaces flattened). */
export function offeredTools(request: RecordedRequest): Array<{ name: string; type: string }> {
  const body = (request.body ?? {}) as Json;
  const found: Array<{ name: string; type: string }> = [];
  const walk = (tools: unknown): void => {
    if (!Array.isArray(tools)) return;
    for (const tool of tools as Json[]) {
      if (tool.type === 'namespace') walk(tool.tools);
      else if (tool.type === 'function' && tool.function) found.push({ name: tool.function.name, type: 'function' });
      else found.push({ name: String(tool.name), type: String(tool.type ?? 'function') });
    }
  };
  walk(body.tools);
  // Codex's newest models declare their tools as an input item.
  if (Array.isArray(body.input))
    for (const item of body.input as Json[]) if (item.type === 'additional_tools') walk(item.tools);
  return found;
}

/** The text of every tool result in a request, in any of the three wire formats. */
export function toolResults(request: RecordedRequest): string[] {
  const body = (request.body ?? {}) as Json;
  const results: string[] = [];
  const text = (value: unknown): string => (typeof value === 'string' ? value : JSON.stringify(value));
  for (const message of (body.messages ?? []) as Json[]) {
    if (message.role === 'tool') results.push(text(message.content));
    if (Array.isArray(message.content))
      for (const block of message.content as Json[])
        if (block.type === 'tool_result') results.push(text(block.content));
  }
  for (const item of (Array.isArray(body.input) ? body.input : []) as Json[])
    if (item.type === 'function_call_output' || item.type === 'custom_tool_call_output')
      results.push(text(item.output));
  return results;
}

/** The call that makes each known agent read PROBE_FILE with its own tool. */
function probeCall(request: RecordedRequest, dir: string): MockToolCall {
  const tools = offeredTools(request);
  const has = (name: string, type?: string) => tools.some((t) => t.name === name && (!type || t.type === type));
  const path = join(dir, PROBE_FILE);
  if (has('Read')) return { id: 'toolu_probe_1', name: 'Read', arguments: { file_path: path } }; // Claude Code
  if (has('read')) return { id: 'call_probe_1', name: 'read', arguments: { filePath: path } }; // opencode
  const codexScript = `const r = await tools.exec_command({ cmd: "cat ${PROBE_FILE}" });\ntext(r);`;
  if (has('exec', 'custom'))
    // Codex's code-mode tool: JavaScript that calls its nested shell tool.
    return { id: 'call_probe_1', name: 'exec', namespace: 'functions', input: codexScript };
  // The same tool as a provider other than OpenAI sees it: a function taking the script as `input`.
  if (has('exec')) return { id: 'call_probe_1', name: 'exec', arguments: { input: codexScript } };
  if (has('exec_command')) return { id: 'call_probe_1', name: 'exec_command', arguments: { cmd: `cat ${PROBE_FILE}` } };
  if (has('shell')) return { id: 'call_probe_1', name: 'shell', arguments: { command: ['cat', PROBE_FILE] } };
  throw new Error(`no known file-reading tool among: ${tools.map((t) => t.name).join(', ')}`);
}

/**
 * A two-step agent turn: the first model call asks for a tool that reads PROBE_FILE, the call
 * that carries its result gets a final answer saying whether the file's content came back.
 * Side requests (titles, summaries: no tools offered) get a short plain answer.
 */
export function toolRoundTrip(dir: string): (request: RecordedRequest) => MockScenario {
  return (request) => {
    const results = toolResults(request);
    if (results.length > 0) {
      const seen = results.some((r) => r.includes(PROBE_CONTENT));
      return { text: `${FINAL_PREFIX} ${seen ? PROBE_CONTENT : 'probe content missing'}` };
    }
    if (offeredTools(request).length === 0) return { text: 'Probe session' };
    return { toolCalls: [probeCall(request, dir)] };
  };
}
