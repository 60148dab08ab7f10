// Which coding agent sent a request, read from its User-Agent: `claude-cli/1.0.83 (external, cli)`,
// `codex_cli_rs/0.20.0 (Mac OS 14.5.0; arm64) iTerm.app/3.5.10`, `opencode/0.5.1 ai-sdk/...`.

/** Agents' product tokens, as their User-Agent starts; docs/console-api.md lists them. */
const KNOWN_AGENTS = ['claude-cli', 'codex_cli_rs', 'codex_exec', 'opencode', 'gemini-cli', 'gateway-launch'] as const;

const PRODUCT = /^([A-Za-z0-9_.-]{1,64})\/([0-9A-Za-z.+_-]{1,64})/;

/**
 * `name/version` of a known agent, else undefined: arbitrary SDK user agents are not sessions' agents
 * and would let any client fill the column with free text.
 */
export function clientAgentFrom(userAgent: string | string[] | undefined): string | undefined {
  const text = Array.isArray(userAgent) ? userAgent[0] : userAgent;
  const match = text === undefined ? null : PRODUCT.exec(text.trim());
  if (!match) return undefined;
  const name = match[1]!.toLowerCase();
  return (KNOWN_AGENTS as readonly string[]).includes(name) ? `${name}/${match[2]}` : undefined;
}
