// Entry point for tests that run the service as a child process straight from src/ (through tsx):
// `node --import tsx test/support/gateway-process.ts [command…]`, `serve` when no command is given.
// See test/support/gateway-children.ts for the spawning side.
import { main } from '../../src/cli/main.js';

const args = process.argv.slice(2);
main(args.length > 0 ? args : ['serve']).catch((error: unknown) => {
  process.stderr.write(`gateway-process: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
