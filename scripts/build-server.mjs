#!/usr/bin/env node
// Builds the server: `tsc -p tsconfig.build.json` into dist/ (the modules, one file per source
// file), the tokenizers' ranks files into dist/ranks/, then one esbuild bundle of the modules
// into dist/bundle/, which is what bin/gateway runs.
//   node scripts/build-server.mjs [--out=DIR]   (DIR: the build's root, default the repository)
// Why a bundle (docs/decisions.md, "Memory"): the gateway's ~1,500 ES and CommonJS modules each
// cost V8 a module record, a kept source string and their compiled top level; one bundle with
// the unused code dropped idles ~13 MB smaller. The surfaces and libraries that load on first use
// (console, collector, API docs, certificate maker) stay separate chunks, loaded as before; what
// cannot work from a bundle is `external` below. test/shipped/ runs the bundle as `npm start` does.
import { spawnSync } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import * as esbuild from 'esbuild';

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..');
const outArg = process.argv.find((a) => a.startsWith('--out='));
const outRoot = outArg ? resolve(outArg.slice('--out='.length)) : repoRoot;
const dist = join(outRoot, 'dist');

const tsc = spawnSync(
  process.execPath,
  [join(repoRoot, 'node_modules/typescript/bin/tsc'), '-p', join(repoRoot, 'tsconfig.build.json'), '--outDir', dist],
  { cwd: repoRoot, stdio: 'inherit' },
);
// tsc still emits when part of the tree has a type error: the bundle is made from what it
// emitted, and the script then fails with tsc's status (test/cli builds and runs it regardless).
if (!existsSync(join(dist, 'cli/main.js'))) process.exit(tsc.status || 1);

// The tokenizers' merge ranks as binary files, read in one go on a first count (ranks-file.ts).
const { writeRanksFiles } = await import(pathToFileURL(join(dist, 'tokenize/ranks-file.js')).href);
writeRanksFiles(join(dist, 'ranks'));

const outdir = join(dist, 'bundle');
rmSync(outdir, { recursive: true, force: true });
await esbuild.build({
  // startup-heap is its own entry: bin/gateway runs it before the rest is loaded. The others are
  // files a thread or process is started with, found next to the code that starts it
  // (`./worker.js` for the offload pool, `./local-ca-child.js` for the certificate process).
  entryPoints: {
    main: join(dist, 'cli/main.js'),
    'startup-heap': join(dist, 'cli/startup-heap.js'),
    worker: join(dist, 'offload/worker.js'),
    'local-ca-child': join(dist, 'server/local-ca-child.js'),
  },
  outdir,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  // Files of dist/bundle/ sit two levels below the root like dist/<folder>/*.js, so paths such
  // as '../../package.json' and '../../dist/web/' mean the same in both.
  chunkNames: 'chunk-[hash]',
  // Native code, and packages that start threads from a file of their own (piscina's worker.js,
  // found next to its code) or whose module registry does not survive bundling (@peculiar/x509).
  // Swagger UI serves its static files from next to its own code (`__dirname`, which an ES module
  // bundle has none of, and would point into dist/bundle/ if made up). OpenTelemetry's packages
  // are CommonJS loaded with import(): split into a chunk of their own, esbuild gives such a chunk
  // only a default export, so `OTLPTraceExporter` and the rest came out undefined. Both load on
  // first use only (the API docs, a configured trace endpoint), so the idle process is the same;
  // test/shipped/ runs both from the bundle. The route schema compilers (ajv through
  // @fastify/ajv-compiler, fast-json-stringify) are required on a route's first request
  // (server/lazy-validators.ts, lazy-serializers.ts), from their one-file build below: bundled
  // here, their ~400 kB of source stayed in the chunk every process loads, never run (Fastify's
  // own fallback requires of them are not reached: every app is given both compilers).
  external: [
    'better-sqlite3',
    'piscina',
    '@peculiar/x509',
    '@fastify/swagger',
    '@fastify/swagger-ui',
    '@opentelemetry/*',
    '@fastify/ajv-compiler',
    '@fastify/fast-json-stringify-compiler',
    'ajv',
    'fast-json-stringify',
  ],
  // CommonJS dependencies call require(); in an ES module there is none unless made.
  banner: {
    js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);",
  },
  // Whitespace and syntax only: source strings stay in V8's heap for the life of the process,
  // so their size counts; identifiers stay as written (stack traces). No keepNames: it costs an
  // Object.defineProperty per closure made at run time, ~10 % of a streamed request's CPU, to
  // keep Function#name exact where two modules' names collide (docs/decisions.md, "Memory").
  // The source maps beside the files are read only under `node --enable-source-maps`, for stack
  // traces with the original files and lines.
  minifyWhitespace: true,
  minifySyntax: true,
  keepNames: false,
  sourcemap: true,
  logLevel: 'warning',
});
/**
 * Packages loaded on first use, built with what they require into one minified CommonJS file that
 * exports each by its name (config/bundled-package.ts requires it, else the package itself).
 */
function buildPackagesFile(packages, file) {
  return esbuild.build({
    stdin: {
      contents: packages
        .map((name) => `exports[${JSON.stringify(name)}] = require(${JSON.stringify(name)});`)
        .join('\n'),
      resolveDir: repoRoot,
      loader: 'js',
    },
    outfile: join(outdir, file),
    bundle: true,
    format: 'cjs',
    platform: 'node',
    target: 'node20',
    minifyWhitespace: true,
    minifySyntax: true,
    logLevel: 'warning',
  });
}
// The YAML parser, required (synchronously, as the config is read) only for a YAML config file
// (config/gateway-config.ts): loaded from node_modules it is ~70 modules, each a module object, a
// wrapper and its unminified source, ~0.6 MB more of an idle heap.
await buildPackagesFile(['yaml'], 'yaml.cjs');
// Fastify's two schema compilers and the ajv they share, required on the first route compilation
// (server/schema-compiler-packages.ts): one file to read on that first request instead of ~120
// modules from node_modules.
await buildPackagesFile(['@fastify/ajv-compiler', '@fastify/fast-json-stringify-compiler'], 'schema-compilers.cjs');
if (tsc.status !== 0) process.exit(tsc.status ?? 1);
