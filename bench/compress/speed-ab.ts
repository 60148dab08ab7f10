// Compression speed, this tree against another commit, in ONE process: the two engines take
// turns conversation by conversation (which one goes first alternates), so load from other
// processes on a shared machine falls on both alike. The gateway's path, as run.ts
// --conversation times it: fresh JSON.parse per request, compression and token caches emptied
// per conversation, piece memos kept, warm-up first.
//
//   node --import tsx bench/compress/speed-ab.ts --baseline=<git ref> [--dataset DIR] [--reps N] [--first-sight]
//
// The baseline is exported with `git archive` into a temporary directory next to this tree's
// node_modules; both module graphs are loaded side by side.
import { execSync } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import { loadDataset, prefixes, toShape, type Shape } from './dataset.js';
import { warmupConversations } from './warmup.js';
import { TRAJECTORY_DIR } from '../../test/fixtures/trajectories.js';

type Body = Record<string, unknown>;
const arg = (name: string) =>
  process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ??
  (process.argv.includes(`--${name}`) ? process.argv[process.argv.indexOf(`--${name}`) + 1] : undefined);
const REF = arg('baseline');
if (!REF) throw new Error('--baseline=<git ref> is required');
const DATA = arg('dataset') ?? TRAJECTORY_DIR;
const REPS = Number(arg('reps') ?? 2);
const CONVERSATION = !process.argv.includes('--first-sight');
const SHAPES: Shape[] = ['chat', 'messages', 'responses'];

const here = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const baseDir = mkdtempSync(join(tmpdir(), 'speed-ab-'));
execSync(`git archive ${REF} | tar -x -C ${baseDir}`, { cwd: here, shell: '/bin/bash' });
symlinkSync(join(here, 'node_modules'), join(baseDir, 'node_modules'));

interface Engine {
  name: string;
  compress: (body: Body, conversation?: object) => { compression: { uncompressed_input_tokens: number } } & Body;
  clear: (all: boolean) => void;
  pricing: unknown;
  cpuMs: number;
  wallMs: number;
  tokens: number;
}

async function engine(name: string, root: string): Promise<Engine> {
  const c = await import(join(root, 'src/compress/index.ts'));
  const t = await import(join(root, 'src/tokenize/index.ts'));
  const p = await import(join(root, 'src/catalogue/cache-pricing.ts'));
  t.preloadEncoders(t.TOKENIZERS);
  return {
    name,
    compress: (body, conversation) => c.compressPayload(body, conversation ? { conversation } : {}),
    clear: (all) => {
      c.clearCompressionCaches();
      t.clearTokenCache();
      if (all) t.clearPieceMemos();
    },
    pricing: p.cachePricingFor('anthropic', { input_per_mtok: 3, output_per_mtok: 15 }),
    cpuMs: 0,
    wallMs: 0,
    tokens: 0,
  };
}

const engines = [await engine(`baseline ${REF}`, baseDir), await engine('this tree', here)];
const synthetic = warmupConversations().map((messages) => ({ name: 'warmup', native: true, messages }));
for (const e of engines) {
  for (let round = 0; round < 3; round++)
    for (const conv of synthetic)
      for (const shape of SHAPES)
        for (const m of prefixes(conv)) e.compress(JSON.parse(JSON.stringify(toShape(m, shape))) as Body);
  e.clear(true);
}

const conversations = loadDataset(DATA);
let turn = 0;
for (let rep = 0; rep < REPS; rep++) {
  for (const shape of SHAPES) {
    for (const conv of conversations) {
      const order = turn++ % 2 === 0 ? engines : [...engines].reverse();
      for (const e of order) {
        e.clear(false);
        let state: unknown;
        prefixes(conv).forEach((m, i) => {
          const body = JSON.parse(JSON.stringify(toShape(m, shape))) as Body;
          const cpu0 = process.cpuUsage();
          const t0 = performance.now();
          const r = e.compress(body, CONVERSATION ? { pricing: e.pricing, state, now: 20_000 * i } : undefined);
          e.wallMs += performance.now() - t0;
          const cpu = process.cpuUsage(cpu0);
          e.cpuMs += (cpu.user + cpu.system) / 1000;
          state = (r.conversation as { state?: unknown } | undefined)?.state;
          e.tokens += r.compression.uncompressed_input_tokens;
        });
      }
    }
  }
}
rmSync(baseDir, { recursive: true, force: true });
console.log(`${DATA} (${CONVERSATION ? 'gateway path' : 'first-sight'}), ms per 100k input tokens:`);
for (const e of engines)
  console.log(
    `  ${e.name.padEnd(28)} ${((e.cpuMs / e.tokens) * 1e5).toFixed(2)} CPU, ${((e.wallMs / e.tokens) * 1e5).toFixed(2)} wall`,
  );
