export { createHttpAdapter } from './create-http-adapter.js';
export { closeHttpAgents } from './agent-pool.js';
export { parseRetryAfterMs } from './retry-after.js';
