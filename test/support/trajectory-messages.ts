import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { TRAJECTORY_DIR } from '../fixtures/trajectories.js';

const TRAJECTORY = join(
  TRAJECTORY_DIR,
  'replay__marshmallow-code__marshmallow-1867__function_calling__install-1__marshmallow-code__marshmallow-1867.traj',
);

interface TrajectoryMessage {
  role: string;
  content: unknown;
  tool_calls?: Array<{ id: string; function: { name: string; arguments: string } }>;
  tool_call_ids?: string[];
}

/**
 * A long SWE-agent history as chat messages (agent-only fields dropped, `tool_call_ids` →
 * `tool_call_id`): its tool outputs are what compression cuts.
 */
export function trajectoryMessages(): Array<Record<string, unknown>> {
  const history = (JSON.parse(readFileSync(TRAJECTORY, 'utf8')) as { history: TrajectoryMessage[] }).history;
  return history.map((m) => {
    const message: Record<string, unknown> = {
      role: m.role,
      content: typeof m.content === 'string' ? m.content : JSON.stringify(m.content),
    };
    if (m.tool_calls?.length)
      message.tool_calls = m.tool_calls.map((c) => ({
        id: c.id,
        type: 'function',
        function: { name: c.function.name, arguments: c.function.arguments },
      }));
    if (m.tool_call_ids?.length) message.tool_call_id = m.tool_call_ids[0];
    return message;
  });
}
