import { parseArgs } from 'node:util';
import { serve } from './serve.js';
import { bootstrap } from './bootstrap.js';
import { backup, restore } from './backup.js';
import { connect, trust } from './connect.js';
import { CLIENTS } from './client-profiles.js';
import { ROTATE_USAGE, rotateMasterKey } from './rotate-master-key.js';
import { launch, parseLaunchArgs } from './launch.js';
import { LAUNCH_AGENTS } from './launch-plan.js';

const USAGE = `usage:
  gateway serve                                   start the gateway, console and collector listeners
  gateway admin bootstrap --org <slug> [--name <name>] [--email <address>]
                                                  create the organization if absent and a full-rights
                                                  console token for it (printed once, as JSON); with
                                                  --email, that address becomes an owner and the token
                                                  signs in as it
  gateway admin backup <file>                     copy the SQLite store while the gateway serves (one
                                                  JSON line); not secret.key: keep it apart. With
                                                  DATABASE_URL: prints the pg_dump procedure, exits 1
  gateway admin restore <file> [--force]          check a backup (integrity, migrations) and install it
                                                  in GATEWAY_DATA_DIR; refuses while a gateway has the
                                                  store open, and an existing store without --force
  gateway admin rotate-master-key [--batch-size <n>] [--check]
                                                  re-seal every stored secret with the current master
                                                  key while the gateway serves (--help: the procedure)
  gateway trust [--json]                          the CA clients must trust and the variable each client
                                                  reads (NODE_EXTRA_CA_CERTS, CODEX_CA_CERTIFICATE, …)
  gateway connect <client> [--key <key>] [--org <slug>] [--url <https://host:port>]
                  [--compression <bundle> | --no-compression] [--json]
                                                  create a key (or use --key) and print the complete
                                                  environment and config files for the client:
                                                  ${CLIENTS.join(', ')}
  gateway launch [--org <slug>] [--url <https://host:port>] [--compression <bundle> | --no-compression]
                 [--bin <path>] [--member <email>] <agent> [args…]
                                                  run the agent (${Object.keys(LAUNCH_AGENTS).join(', ')}) wired to this
                                                  gateway: a key (made once, then reused), the CA and a
                                                  new session id; every argument after <agent> is the
                                                  agent's, its exit code is this command's; the key is
                                                  the member's (--member, else git user.email, else
                                                  the owner: docs/members.md)
environment: see docs/configuration.md; clients: docs/agents.md`;

export async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  if (command === 'launch') {
    // Before the --help check below: a --help after the agent's name is the agent's.
    const parsed = parseLaunchArgs(rest);
    if (parsed === 'help') return void process.stdout.write(usageOf(['launch']) + '\n');
    return launch(parsed);
  }
  if (command === 'admin' && rest[0] === 'rotate-master-key') {
    const { values } = parseArgs({
      args: rest.slice(1),
      options: { 'batch-size': { type: 'string' }, check: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
      strict: true,
    });
    if (values.help) {
      process.stdout.write(ROTATE_USAGE + '\n');
      return;
    }
    return rotateMasterKey({ batchSize: Number(values['batch-size'] ?? 200), check: values.check === true });
  }
  if (rest.includes('--help') || rest.includes('-h')) {
    process.stdout.write(usageOf(argv.filter((word) => !word.startsWith('-')).slice(0, 2)) + '\n');
    return;
  }
  if (command === 'serve') return serve();
  if (command === 'admin' && rest[0] === 'bootstrap') {
    const { values } = parseArgs({
      args: rest.slice(1),
      options: { org: { type: 'string' }, name: { type: 'string' }, email: { type: 'string' } },
      strict: true,
    });
    if (!values.org) throw new Error(`--org <slug> is required\n${USAGE}`);
    return bootstrap({ slug: values.org, name: values.name, email: values.email });
  }
  if (command === 'admin' && (rest[0] === 'backup' || rest[0] === 'restore')) {
    const { values, positionals } = parseArgs({
      args: rest.slice(1),
      options: { force: { type: 'boolean' } },
      allowPositionals: true,
      strict: true,
    });
    if (positionals.length !== 1) throw new Error(`admin ${rest[0]} takes one file\n${USAGE}`);
    if (rest[0] === 'backup') {
      if (values.force) throw new Error(`admin backup has no --force\n${USAGE}`);
      return backup({ file: positionals[0]! });
    }
    return restore({ file: positionals[0]!, force: values.force === true });
  }
  if (command === 'trust') {
    const { values } = parseArgs({ args: rest, options: { json: { type: 'boolean' } }, strict: true });
    return trust({ json: values.json });
  }
  if (command === 'connect') {
    const { values, positionals } = parseArgs({
      args: rest,
      options: {
        key: { type: 'string' },
        org: { type: 'string' },
        url: { type: 'string' },
        compression: { type: 'string' },
        'no-compression': { type: 'boolean' },
        json: { type: 'boolean' },
      },
      allowPositionals: true,
      strict: true,
    });
    if (positionals.length !== 1) throw new Error(`connect takes one client: ${CLIENTS.join(', ')}\n${USAGE}`);
    return connect({
      client: positionals[0]!,
      key: values.key,
      org: values.org,
      url: values.url,
      compression: values['no-compression'] ? false : values.compression,
      json: values.json,
    });
  }
  if (command === undefined || command === 'help' || command === '--help' || command === '-h') {
    process.stdout.write(USAGE + '\n');
    return;
  }
  throw new Error(`unknown command "${argv.join(' ')}"\n${USAGE}`);
}

/**
 * The usage entries of one command (`connect`, `admin`, `admin backup`): an entry is its
 * `  gateway …` line and the indented lines under it. All of them for an unknown command.
 */
function usageOf(words: string[]): string {
  const lines = USAGE.split('\n');
  const entries: string[][] = [];
  for (const line of lines.slice(1, -1))
    if (line.startsWith('  gateway ')) entries.push([line]);
    else entries.at(-1)?.push(line);
  for (let n = words.length; n > 0; n--) {
    const prefix = `  gateway ${words.slice(0, n).join(' ')}`;
    const chosen = entries.filter(([first]) => first === prefix || first!.startsWith(`${prefix} `));
    if (chosen.length) return [lines[0], ...chosen.flat(), lines.at(-1)].join('\n');
  }
  return USAGE;
}
