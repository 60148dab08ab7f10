export { localAdapter } from './local-adapter.js';
export { buildLocalReply } from './build-reply.js';
