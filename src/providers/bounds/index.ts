export { configureUpstreamLimits, upstreamLimits, answerTooLarge } from './upstream-limits.js';
export { BufferAccount, bufferedUpstreamBytes, FREE_BYTES_PER_ACCOUNT } from './buffer-budget.js';
export { KeptText } from './kept-text.js';
