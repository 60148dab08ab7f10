export { localAdapter, answerLocalRequestsWith, type LocalAnswerer } from './local-adapter.js';
export { buildLocalReply } from './build-reply.js';
