// Token counting on real agent traffic: every request of every SWE-agent trajectory, counted by
// plain tiktoken (no cache) and by countRequestTokens (cold cache). Run:
//   node --import tsx bench/tokens/run.ts
import assert from 'node:assert/strict';
import { performance } from 'node:perf_hooks';
import {
  clearTokenCache,
  countRequestTokens,
  tokenCacheStats,
  TOKENIZERS,
  type TokenizerName,
} from '../../src/tokenize/index.js';
import { createBaselineCounter } from './baseline.js';
import { loadAgentRequests, type ChatRequestFixture } from './load-trajectories.js';

interface Measurement {
  tokens: number;
  ms: number;
  perRequest: number[];
}

function measure(requests: readonly ChatRequestFixture[], count: (r: ChatRequestFixture) => number): Measurement {
  const perRequest: number[] = [];
  let tokens = 0;
  const start = performance.now();
  for (const request of requests) {
    const n = count(request);
    perRequest.push(n);
    tokens += n;
  }
  return { tokens, ms: performance.now() - start, perRequest };
}

/** Median of several rounds, alternating the two counters so neither gets a quieter machine. */
function medianOf(rounds: Measurement[]): Measurement {
  const sorted = [...rounds].sort((a, b) => a.ms - b.ms);
  return sorted[Math.floor(sorted.length / 2)] as Measurement;
}

const ROUNDS = 5;

function line(label: string, requests: number, m: Measurement): string {
  const rate = (m.tokens / (m.ms / 1000)).toLocaleString('en-US', { maximumFractionDigits: 0 });
  return `${label.padEnd(28)} requests=${requests}  tokens=${m.tokens}  time=${m.ms.toFixed(1)} ms  throughput=${rate} tokens/s`;
}

function benchTokenizer(tokenizer: TokenizerName): void {
  const { files, requests } = loadAgentRequests('openai/gpt-4o');
  const baseline = createBaselineCounter(tokenizer);
  const ours = (request: ChatRequestFixture) => countRequestTokens(request, tokenizer);

  // Warm-up: JIT both paths and load both vocabularies, so neither pays start-up in its timing.
  const warm = requests.slice(0, 20);
  measure(warm, baseline);
  measure(warm, ours);
  clearTokenCache();

  const plainRounds: Measurement[] = [];
  const cachedRounds: Measurement[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    plainRounds.push(measure(requests, baseline));
    clearTokenCache(); // every round of ours starts cold: no conversation has been seen yet
    cachedRounds.push(measure(requests, ours));
  }
  const plain = medianOf(plainRounds);
  const cached = medianOf(cachedRounds);
  const stats = tokenCacheStats();
  for (const round of [...plainRounds, ...cachedRounds]) {
    assert.equal(round.tokens, plain.tokens, 'total tokens differ');
    assert.deepEqual(round.perRequest, plain.perRequest, 'per-request tokens differ');
  }

  console.log(
    `\n[${tokenizer}] ${files} trajectories, ${requests.length} requests (every prefix), median of ${ROUNDS} rounds`,
  );
  console.log(line('baseline (tiktoken, no cache)', requests.length, plain));
  console.log(line('countRequestTokens (cold)', requests.length, cached));
  console.log(`cache: ${stats.entries} entries, ${stats.chars} chars, ${stats.hits} hits, ${stats.misses} misses`);
  console.log(`speed-up: ${(plain.ms / cached.ms).toFixed(1)}x  (per-request counts identical)`);
}

for (const tokenizer of TOKENIZERS) benchTokenizer(tokenizer);
