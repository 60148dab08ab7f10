import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { isatty } from 'node:tty';
import { parseArgs } from 'node:util';
import { readSettings } from '../config/settings.js';
import { COMPRESSION_MODELS, isCompressionModel } from '../compress/index.js';
import { BUNDLE_OF, clientProfile, type ConnectionInput } from './client-profiles.js';
import { launchKey } from './client-keys.js';
import { gitUserEmail } from './launch-member.js';
import { gatewayOrigin, warnUnlessServed } from './connect.js';
import { LAUNCH_AGENTS, launchAgent, launchPlan, sessionHeaders } from './launch-plan.js';
import { deploymentOpencodeModels } from './opencode-models.js';
import { mergedCaFile } from './merged-ca-file.js';
import { trustInfo } from './trust.js';

export interface LaunchOptions {
  agent: string;
  /** Everything after the agent's name, passed to it untouched. */
  args: string[];
  org?: string | undefined;
  url?: string | undefined;
  /** A bundle name, or `false` for no compression. */
  compression?: string | false | undefined;
  /** The agent's binary, instead of its name on PATH. */
  bin?: string | undefined;
  /** The member (email) the key is for; default: `git config user.email` when a member, else the owner. */
  member?: string | undefined;
}

/** Launch's own options, which come before the agent's name; the ones taking a value. */
const LAUNCH_OPTIONS = {
  org: { type: 'string' },
  url: { type: 'string' },
  compression: { type: 'string' },
  'no-compression': { type: 'boolean' },
  bin: { type: 'string' },
  member: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;
const TAKES_VALUE = new Set(['--org', '--url', '--compression', '--bin', '--member']);

/**
 * `launch [options] <agent> [args…]`: launch's options end at the agent's name, so every
 * argument after it (`--help` included) is the agent's. 'help' when asked before the name.
 */
export function parseLaunchArgs(rest: string[]): LaunchOptions | 'help' {
  let at = 0;
  while (at < rest.length && rest[at]!.startsWith('-')) at += TAKES_VALUE.has(rest[at]!) ? 2 : 1;
  const { values } = parseArgs({ args: rest.slice(0, at), options: LAUNCH_OPTIONS, strict: true });
  if (values.help) return 'help';
  const agent = rest[at];
  if (agent === undefined) throw new Error(`launch takes an agent: ${Object.keys(LAUNCH_AGENTS).join(', ')}`);
  return {
    agent,
    args: rest.slice(at + 1),
    org: values.org,
    url: values.url,
    compression: values['no-compression'] ? false : values.compression,
    bin: values.bin,
    member: values.member,
  };
}

/**
 * `gateway launch <agent> [args…]`: the agent as a child process wired to this gateway — a key
 * (the one an earlier launch made, else a new one), the CA, and a fresh session id the gateway
 * keeps apart in compression's state and tags the usage rows with — with stdio, arguments,
 * signals and exit status passed through.
 */
export async function launch(options: LaunchOptions): Promise<void> {
  const agent = launchAgent(options.agent);
  if (!agent) throw new Error(`unknown agent "${options.agent}"; one of: ${Object.keys(LAUNCH_AGENTS).join(', ')}`);
  if (typeof options.compression === 'string' && !isCompressionModel(options.compression))
    throw new Error(`--compression must be one of: ${COMPRESSION_MODELS.join(', ')}`);
  const settings = readSettings();
  const origin = gatewayOrigin(settings, options.url);
  // Before anything is made: a bad config file fails here, not after a key was created.
  const models = agent.client === 'opencode' ? deploymentOpencodeModels(settings) : undefined;
  const trusted = await trustInfo(settings);
  const bundle = options.compression === false ? undefined : (options.compression ?? BUNDLE_OF[agent.client]);
  const key = await launchKey(settings, {
    client: agent.client,
    org: options.org ?? 'default',
    compression: bundle !== undefined,
    member: options.member,
    gitEmail: options.member === undefined ? gitUserEmail() : undefined,
  });
  await warnUnlessServed(settings, origin, key.secret, trusted);

  const sessionId = randomUUID();
  const connection: ConnectionInput = {
    origin,
    apiKey: key.secret,
    caFile: trusted.caFile,
    caBundleFile: trusted.caBundleFile,
    bundle,
    headers: sessionHeaders(sessionId),
    opencodeModels: models,
  };
  const plan = launchPlan(agent, clientProfile(agent.client, connection), {
    args: options.args,
    baseEnv: process.env,
    binary: options.bin,
    connection,
  });
  for (const variable of MERGED_CA_VARIABLES)
    if (plan.env[variable] && trusted.caFile)
      plan.env[variable] = mergedCaFile(variable, trusted.caFile, process.env[variable], join(settings.dataDir, 'tls'));
  process.stderr.write(
    `gateway launch: ${plan.command} → ${origin} (key ${key.id}${key.reused ? '' : ', new'}; session ${sessionId})\n` +
      (key.member ? `gateway launch: for member ${key.member.email}\n` : ''),
  );
  await runForwarding(plan.command, plan.args, plan.env, agent.binaryVariable);
}

/** CA variables that add to a client's trust: the user's value is kept beside the gateway's CA. */
const MERGED_CA_VARIABLES = ['NODE_EXTRA_CA_CERTS', 'CODEX_CA_CERTIFICATE'];

const FORWARDED: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

/**
 * Runs the agent on this terminal and ends this process the way the agent ended: its exit code,
 * or the same signal. SIGTERM and SIGHUP are forwarded; SIGINT too, except on a terminal, where
 * Ctrl-C already reaches the agent (same process group) and a second copy would read as a
 * double Ctrl-C, which makes Claude Code exit.
 */
async function runForwarding(
  command: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  binaryVariable: string,
): Promise<void> {
  const child = spawn(command, args, { stdio: 'inherit', env });
  const forward = (signal: NodeJS.Signals) => {
    // isatty, not process.stdin: creating stdin's stream could take terminal input from the agent.
    if (signal === 'SIGINT' && isatty(0)) return;
    child.kill(signal);
  };
  for (const signal of FORWARDED) process.on(signal, forward);
  try {
    const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve, reject) => {
      child.once('exit', (exitCode, exitSignal) => resolve([exitCode, exitSignal]));
      child.once('error', (error: NodeJS.ErrnoException) =>
        reject(
          error.code === 'ENOENT'
            ? new Error(
                `cannot run "${command}": not found; install it, or name its binary with --bin or ${binaryVariable}`,
              )
            : error,
        ),
      );
    });
    for (const forwarded of FORWARDED) process.off(forwarded, forward);
    if (signal) process.kill(process.pid, signal);
    else process.exitCode = code ?? 1;
  } finally {
    for (const forwarded of FORWARDED) process.off(forwarded, forward);
  }
}
