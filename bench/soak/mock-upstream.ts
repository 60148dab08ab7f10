/**
 * The soak's upstream, in its own process: the test suite's mock OpenAI server on 127.0.0.1,
 * JSON answers after 20 ms, streams of ~12 events 5 ms apart. Prints {"url": …} once listening
 * and exits when its parent closes stdin or sends SIGTERM.
 */
import { startMockOpenAI } from '../../test/support/mock-upstreams/index.js';

const mock = await startMockOpenAI();
const words = Array.from({ length: 12 }, (_, i) => `word${i} `);
mock.setScenario((request) => {
  // The mock records every request; the soak would otherwise measure the mock's memory growing.
  mock.requests.length = 0;
  return request.body?.stream
    ? { textChunks: words, chunkDelayMs: 5, usage: { inputTokens: 40, outputTokens: 12 } }
    : { hangBeforeHeadersMs: 20, usage: { inputTokens: 40, outputTokens: 12 } };
});
process.stdout.write(`${JSON.stringify({ url: mock.baseUrl })}\n`);

const stop = () => void mock.close().finally(() => process.exit(0));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
process.stdin.on('end', stop).resume();
