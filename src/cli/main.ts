import { parseArgs } from 'node:util';
import { serve } from './serve.js';
import { bootstrap } from './bootstrap.js';

const USAGE = `usage:
  gateway serve                                   start the gateway, console and collector listeners
  gateway admin bootstrap --org <slug> [--name <name>]
                                                  create the organization if absent and a full-rights
                                                  console token for it (printed once, as JSON)
environment: see docs/configuration.md`;

export async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  if (command === 'serve') return serve();
  if (command === 'admin' && rest[0] === 'bootstrap') {
    const { values } = parseArgs({
      args: rest.slice(1),
      options: { org: { type: 'string' }, name: { type: 'string' } },
      strict: true,
    });
    if (!values.org) throw new Error(`--org <slug> is required\n${USAGE}`);
    return bootstrap({ slug: values.org, name: values.name });
  }
  if (command === undefined || command === 'help' || command === '--help' || command === '-h') {
    process.stdout.write(USAGE + '\n');
    return;
  }
  throw new Error(`unknown command "${argv.join(' ')}"\n${USAGE}`);
}
