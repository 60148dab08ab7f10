import {
  codexConfigFlags,
  requestHeaders,
  type ClientName,
  type ClientProfile,
  type ConnectionInput,
} from './client-profiles.js';

/**
 * What `gateway launch` runs for each agent: which command, found how, and how the connection
 * `gateway connect` prints (client-profiles.ts) reaches it without touching the user's files —
 * Claude Code by its variables, Codex by `-c` flags placed before the user's arguments (they
 * override ~/.codex/config.toml for this run only), opencode by OPENCODE_CONFIG_CONTENT (merged
 * over the user's config for this run only). Pure, so the tests check it without an agent.
 */
export interface LaunchAgent {
  client: ClientName;
  /** The command looked up on PATH. */
  command: string;
  /** The variable naming another binary (the tests point it at the pinned packages). */
  binaryVariable: string;
}

export const LAUNCH_AGENTS: Readonly<Record<string, LaunchAgent>> = {
  claude: { client: 'claude-code', command: 'claude', binaryVariable: 'GATEWAY_CLAUDE_BIN' },
  codex: { client: 'codex', command: 'codex', binaryVariable: 'GATEWAY_CODEX_BIN' },
  opencode: { client: 'opencode', command: 'opencode', binaryVariable: 'GATEWAY_OPENCODE_BIN' },
};

/** `claude-code` is accepted too, as `gateway connect` names it. */
export function launchAgent(name: string): LaunchAgent | undefined {
  return LAUNCH_AGENTS[name === 'claude-code' ? 'claude' : name];
}

/** The header the gateway reads as a session id (src/compress/session-headers.ts). */
export const SESSION_HEADER = 'X-Gateway-Session-Id';
/** Tags land in every usage row of the request (src/pipeline/request-tags.ts). */
export const TAGS_HEADER = 'X-Gateway-Tags';

/** The headers that carry a launch's session id into compression's conversation state and the usage rows. */
export function sessionHeaders(sessionId: string): Record<string, string> {
  return { [SESSION_HEADER]: sessionId, [TAGS_HEADER]: `session:${sessionId}` };
}

export interface LaunchPlan {
  command: string;
  args: string[];
  env: NodeJS.ProcessEnv;
}

/**
 * Variables of the user's environment that would send the agent to another endpoint or with
 * another credential than the gateway's key.
 */
const CONFLICTING: Partial<Record<ClientName, string[]>> = {
  'claude-code': ['ANTHROPIC_API_KEY'],
};

export function launchPlan(
  agent: LaunchAgent,
  profile: ClientProfile,
  input: {
    /** The user's arguments, passed as they are. */
    args: string[];
    /** The environment the agent inherits (the launcher's). */
    baseEnv: NodeJS.ProcessEnv;
    /** --bin, when given. */
    binary: string | undefined;
    /** What the profile was made from (Codex's flags are made from it too). */
    connection: ConnectionInput;
  },
): LaunchPlan {
  const command = input.binary || input.baseEnv[agent.binaryVariable] || agent.command;
  const env: NodeJS.ProcessEnv = { ...input.baseEnv };
  for (const name of CONFLICTING[profile.client] ?? []) delete env[name];
  Object.assign(env, profile.env);
  switch (profile.client) {
    case 'codex':
      return {
        command,
        args: [...codexConfigFlags(`${input.connection.origin}/v1`, requestHeaders(input.connection)), ...input.args],
        env,
      };
    case 'opencode':
      return { command, args: input.args, env: { ...env, OPENCODE_CONFIG_CONTENT: profile.files[0]!.content } };
    default:
      return { command, args: input.args, env };
  }
}
