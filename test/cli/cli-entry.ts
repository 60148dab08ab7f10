// Runs the CLI straight from src/ (through tsx), for tests that spawn the service but do not
// need to exercise the built bin/gateway. test/cli/serve.test.ts runs the real bin/gateway.
import { main } from '../../src/cli/main.js';

main(process.argv.slice(2)).catch((error: unknown) => {
  process.stderr.write(`gateway: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
