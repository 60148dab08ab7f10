import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PROBE_CONTENT, PROBE_FILE } from './tool-round-trip.js';

/**
 * The three coding-agent CLIs installed as dev dependencies, run headless the way a user runs
 * them: default model, default flags, only the base URL, the key and the CA given (plus custom
 * headers when a test asks for a compression bundle), and the variables that keep them off the
 * internet (telemetry, plugin and model-list fetches, update checks). Each run gets a fresh HOME
 * and a fresh project directory (a git repository holding PROBE_FILE), so nothing leaks
 * between runs or from the developer's own configuration.
 */
export type AgentCli = 'claude-code' | 'codex' | 'opencode';
export const AGENT_CLIS: readonly AgentCli[] = ['claude-code', 'codex', 'opencode'];

const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const BIN = join(REPO_ROOT, 'node_modules', '.bin');

export const CLI_PACKAGES: Record<AgentCli, string> = {
  'claude-code': '@anthropic-ai/claude-code',
  codex: '@openai/codex',
  opencode: 'opencode-ai',
};

/** The installed version of a CLI, from its package.json. */
export function cliVersion(cli: AgentCli): string {
  const manifest = join(REPO_ROOT, 'node_modules', CLI_PACKAGES[cli], 'package.json');
  return (JSON.parse(readFileSync(manifest, 'utf8')) as { version: string }).version;
}

export interface AgentTarget {
  /** Origin of the server that plays the provider, e.g. https://localhost:8443 (no /v1). */
  origin: string;
  apiKey: string;
  /** PEM file of the CA that signed the server's certificate (https origins). */
  caFile?: string;
  /** Extra request headers, e.g. X-Gateway-Compression-Model. */
  headers?: Record<string, string>;
}

export interface AgentRun {
  cli: AgentCli;
  status: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  elapsedMs: number;
  timedOut: boolean;
  projectDir: string;
}

export interface AgentInvocation {
  command: string;
  args: string[];
  env: Record<string, string>;
  /** Files to write before the run, relative to HOME. */
  files: Record<string, string>;
}

export const PROMPT = `Read the file ${PROBE_FILE} and tell me what it says.`;

/** What a user sets for each CLI, as environment and files; `home` is the run's HOME. */
export function invocation(cli: AgentCli, target: AgentTarget, home: string, prompt = PROMPT): AgentInvocation {
  const headers = target.headers ?? {};
  switch (cli) {
    case 'claude-code':
      return {
        command: join(BIN, 'claude'),
        args: ['-p', prompt],
        env: {
          ANTHROPIC_BASE_URL: target.origin,
          ANTHROPIC_API_KEY: target.apiKey,
          ...(target.caFile ? { NODE_EXTRA_CA_CERTS: target.caFile } : {}),
          ...(Object.keys(headers).length
            ? {
                ANTHROPIC_CUSTOM_HEADERS: Object.entries(headers)
                  .map(([k, v]) => `${k}: ${v}`)
                  .join('\n'),
              }
            : {}),
          // Without it Claude Code also calls api.anthropic.com (telemetry, feature flags).
          CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
        },
        files: {},
      };
    case 'codex':
      return {
        command: join(BIN, 'codex'),
        args: ['exec', prompt],
        env: {
          CODEX_HOME: join(home, '.codex'),
          GATEWAY_API_KEY: target.apiKey,
          ...(target.caFile ? { CODEX_CA_CERTIFICATE: target.caFile } : {}),
        },
        files: { '.codex/config.toml': codexConfig(`${target.origin}/v1`, headers) },
      };
    case 'opencode':
      return {
        command: join(BIN, 'opencode'),
        args: ['run', prompt],
        env: {
          ANTHROPIC_BASE_URL: `${target.origin}/v1`,
          ANTHROPIC_API_KEY: target.apiKey,
          ...(target.caFile ? { NODE_EXTRA_CA_CERTS: target.caFile } : {}),
          ...(Object.keys(headers).length
            ? { OPENCODE_CONFIG_CONTENT: JSON.stringify({ provider: { anthropic: { options: { headers } } } }) }
            : {}),
          // Without them opencode fetches models.dev's list and checks npm for a newer version.
          OPENCODE_DISABLE_MODELS_FETCH: '1',
          OPENCODE_DISABLE_AUTOUPDATE: '1',
        },
        files: {},
      };
  }
}

/** Codex's custom provider; `plugins` and `analytics` off keep it from calling GitHub and chatgpt.com. */
export function codexConfig(baseUrl: string, headers: Record<string, string> = {}): string {
  const headerLine = Object.keys(headers).length
    ? `http_headers = { ${Object.entries(headers)
        .map(([k, v]) => `${JSON.stringify(k)} = ${JSON.stringify(v)}`)
        .join(', ')} }\n`
    : '';
  return (
    `model_provider = "gateway"\n\n` +
    `[model_providers.gateway]\n` +
    `name = "LLM Gateway"\n` +
    `base_url = ${JSON.stringify(baseUrl)}\n` +
    `env_key = "GATEWAY_API_KEY"\n` +
    `wire_api = "responses"\n` +
    headerLine +
    `\n[features]\nplugins = false\n\n[analytics]\nenabled = false\n`
  );
}

/** A fresh project directory: a git repository (Codex refuses others by default) with PROBE_FILE. */
export function makeProject(): { dir: string; home: string; cleanup: () => void } {
  const root = mkdtempSync(join(tmpdir(), 'agent-run-'));
  const dir = join(root, 'project');
  const home = join(root, 'home');
  mkdirSync(dir);
  mkdirSync(home);
  writeFileSync(join(dir, PROBE_FILE), `${PROBE_CONTENT}\n`);
  spawnSync('git', ['init', '-q'], { cwd: dir });
  return { dir, home, cleanup: () => rmSync(root, { recursive: true, force: true }) };
}

/** Runs one CLI to completion (or kills it at the deadline) in `project`. */
export async function runAgent(
  cli: AgentCli,
  target: AgentTarget,
  project: { dir: string; home: string },
  options: { timeoutMs?: number; prompt?: string } = {},
): Promise<AgentRun> {
  const call = invocation(cli, target, project.home, options.prompt);
  for (const [path, content] of Object.entries(call.files)) {
    mkdirSync(dirname(join(project.home, path)), { recursive: true });
    writeFileSync(join(project.home, path), content);
  }
  const started = performance.now();
  const child = spawn(call.command, call.args, {
    cwd: project.dir,
    // Nothing from the developer's shell: no proxies, keys or CA variables leak in.
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: project.home, TERM: 'dumb', NO_COLOR: '1', ...call.env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    // The CLIs start helpers (sandboxes, language servers): end the whole group.
    if (child.pid) process.kill(-child.pid, 'SIGKILL');
  }, options.timeoutMs ?? 50_000);
  const [status, signal] = (await once(child, 'close')) as [number | null, NodeJS.Signals | null];
  clearTimeout(timer);
  return {
    cli,
    status,
    signal,
    stdout,
    stderr,
    elapsedMs: performance.now() - started,
    timedOut,
    projectDir: project.dir,
  };
}
