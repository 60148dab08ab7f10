import { createRequire } from 'node:module';
import type { Agent } from 'undici';

/**
 * undici's Agent on its own: the package's entry also loads fetch, WebSocket, EventSource, the
 * cache and the mock agent (~880 KB of source, ~3 MB of heap) that the upstream transport never
 * uses. The Agent's `dispatch`, `close` and `destroy` are its own, not added by the entry.
 */
const UndiciAgent = createRequire(import.meta.url)('undici/lib/dispatcher/agent.js') as typeof Agent;

/**
 * One keep-alive Agent per connect timeout (in practice one for the whole process). An Agent
 * keeps a pool per origin, so every upstream reuses warm connections. `pipelining: 1` means
 * keep-alive without pipelining: a slow stream must never block another request behind it.
 */
const agents = new Map<number, Agent>();

export function dispatcherFor(connectMs: number): Agent {
  let agent = agents.get(connectMs);
  if (!agent) {
    agent = new UndiciAgent({
      connect: { timeout: connectMs },
      pipelining: 1,
      keepAliveTimeout: 30_000,
      keepAliveMaxTimeout: 120_000,
    });
    agents.set(connectMs, agent);
  }
  return agent;
}

/** For graceful shutdown and tests: closes every pooled connection. */
export async function closeHttpAgents(): Promise<void> {
  const all = [...agents.values()];
  agents.clear();
  await Promise.all(all.map((agent) => agent.destroy()));
}
