import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { clientProfile } from '../../../src/cli/client-profiles.js';
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
const NODE_MODULES = join(REPO_ROOT, 'node_modules');

/**
 * One pinned version of a CLI, by the directory npm installed it in: the package's own name for
 * the version pinned first, an npm alias (package.json) for each newer one, so users on either
 * are covered. Two versions share one command name, so `node_modules/.bin` points at only one
 * of them: each release is run from its own directory.
 */
export interface AgentRelease {
  cli: AgentCli;
  /** Directory under node_modules. */
  install: string;
}

export const CLI_PACKAGES: Record<AgentCli, string> = {
  'claude-code': '@anthropic-ai/claude-code',
  codex: '@openai/codex',
  opencode: 'opencode-ai',
};

/** Every pinned release, oldest first per CLI (opencode's newest published is the one pinned first). */
export const AGENT_RELEASES: readonly AgentRelease[] = [
  { cli: 'claude-code', install: CLI_PACKAGES['claude-code'] },
  { cli: 'claude-code', install: 'claude-code-2-1-332' },
  { cli: 'codex', install: CLI_PACKAGES.codex },
  { cli: 'codex', install: 'codex-0-171-0' },
  { cli: 'opencode', install: CLI_PACKAGES.opencode },
];

/** The installed version of a release, from its package.json. */
export function cliVersion(release: AgentRelease): string {
  const manifest = join(NODE_MODULES, release.install, 'package.json');
  return (JSON.parse(readFileSync(manifest, 'utf8')) as { version: string }).version;
}

/** `claude-code 2.1.332`: how tests and reports name a release. */
export function releaseName(release: AgentRelease): string {
  return `${release.cli} ${cliVersion(release)}`;
}

export interface AgentTarget {
  /** Origin of the server that plays the provider, e.g. https://localhost:8443 (no /v1). */
  origin: string;
  apiKey: string;
  /** PEM file of the CA that signed the server's certificate (https origins). */
  caFile?: string;
  caBundleFile?: string;
  /** Compression bundle to request (X-Gateway-Compression-Model), as `gateway connect` prints it. */
  bundle?: string;
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

const HEADLESS: Record<AgentCli, (dir: string, prompt: string) => { command: string; args: string[] }> = {
  'claude-code': (dir, prompt) => ({ command: join(dir, 'bin', 'claude.exe'), args: ['-p', prompt] }),
  codex: (dir, prompt) => ({ command: join(dir, 'bin', 'codex.js'), args: ['exec', prompt] }),
  opencode: (dir, prompt) => ({ command: join(dir, 'bin', 'opencode.exe'), args: ['run', prompt] }),
};

/**
 * Exactly what `gateway connect <cli>` prints (src/cli/client-profiles.ts), variables that only
 * silence vendor traffic included, and the release's headless command with no other flag.
 */
export function invocation(release: AgentRelease, target: AgentTarget, prompt = PROMPT): AgentInvocation {
  const profile = clientProfile(release.cli, {
    origin: target.origin,
    apiKey: target.apiKey,
    caFile: target.caFile,
    caBundleFile: target.caBundleFile,
    bundle: target.bundle,
  });
  return {
    ...HEADLESS[release.cli](join(NODE_MODULES, release.install), prompt),
    env: { ...profile.env, ...profile.quietEnv },
    files: Object.fromEntries(profile.files.map((file) => [file.path.replace(/^~\//, ''), file.content])),
  };
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

/** Runs one CLI release to completion (or kills it at the deadline) in `project`. */
export async function runAgent(
  release: AgentRelease,
  target: AgentTarget,
  project: { dir: string; home: string },
  options: { timeoutMs?: number; prompt?: string } = {},
): Promise<AgentRun> {
  const call = invocation(release, target, options.prompt);
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
    cli: release.cli,
    status,
    signal,
    stdout,
    stderr,
    elapsedMs: performance.now() - started,
    timedOut,
    projectDir: project.dir,
  };
}
