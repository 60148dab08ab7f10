// Runs `gateway serve` from src/ in this process: test/collector/restart.test.ts spawns it with
// `node --import tsx test/support/gateway-process.ts` so it can SIGTERM or kill -9 the gateway.
// It prints {"event":"listening",…} on stdout once the listeners are up.
import { main } from '../../src/cli/main.js';

main(['serve', ...process.argv.slice(2)]).catch((error: unknown) => {
  process.stderr.write(`gateway: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
