import { describe, it, before } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { SourceMap, createRequire } from 'node:module';
import { join } from 'node:path';
import { buildDist, REPO_ROOT } from '../cli/cli-process.js';

/**
 * What a bundle cannot do that node_modules can, found in dist/bundle/ before anything runs it
 * (the route-family and integration suites then run it): code that finds files next to itself
 * (`__dirname`, `__filename`, `require.resolve`: an ES module bundle has none of them, and made-up
 * ones would point into dist/bundle/), and CommonJS packages reached through import() (split into
 * a chunk of their own, esbuild exports only their default; named members come out undefined).
 * Either must be loaded from node_modules (`external` in scripts/build-server.mjs) or not at all.
 */
const BUNDLE = join(REPO_ROOT, 'dist', 'bundle');

/** Bundled code that names a file-relative path and is never run, with the reason it is not. */
const NEVER_RUN_PATH_USERS: Record<string, string> = {
  pino: 'pino.transport() and the `transport` option start a worker from a file; the gateway logs to stderr without one',
  'thread-stream': "pino's transports' worker thread, started only by a transport",
};

/** CommonJS packages reached through import() whose importers read only the default export. */
const DEFAULT_ONLY_IMPORTS: Record<string, string> = {
  fastify: "src/server/api-docs.ts: `const { default: Fastify } = await import('fastify')`",
};

const packageOf = (path: string) => /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(path)?.[1] ?? path;

function bundleFiles(): { name: string; code: string }[] {
  return readdirSync(BUNDLE)
    .filter((name) => name.endsWith('.js'))
    .map((name) => ({ name, code: readFileSync(join(BUNDLE, name), 'utf8') }));
}

/** Every free use of a file-relative path, as `package (original file)`, per package. */
function pathUsers(): Map<string, string[]> {
  const users = new Map<string, string[]>();
  for (const { name, code } of bundleFiles()) {
    const map = new SourceMap(JSON.parse(readFileSync(join(BUNDLE, `${name}.map`), 'utf8')));
    const lines = code.split('\n');
    lines.forEach((line, lineNumber) => {
      // Not a member (`x.__dirname`) or part of a longer name.
      for (const match of line.matchAll(/(?<![\w$.])(?:__dirname|__filename|require\.resolve)(?![\w$])/g)) {
        const entry = map.findEntry(lineNumber, match.index!) as { originalSource?: string };
        const source = entry.originalSource ?? `${name}:${lineNumber + 1}:${match.index}`;
        const where = `${match[0]} in ${source.replace(/^.*node_modules\//, '')} (${name})`;
        users.set(packageOf(source), [...(users.get(packageOf(source)) ?? []), where]);
      }
    });
  }
  return users;
}

/** Packages whose chunk exports only `default`: a CommonJS module split out for an import(). */
function defaultOnlyChunks(): Map<string, string> {
  const files = bundleFiles();
  const all = files.map((f) => f.code).join('\n');
  const found = new Map<string, string>();
  for (const { name, code } of files) {
    const entry = /export default (require_[\w$]+)\(\);\s*(?:\/\/# sourceMappingURL=\S+\s*)?$/.exec(code);
    if (!entry) continue;
    const definition = new RegExp(`${entry[1]!.replace(/\$/g, '\\$')}=__commonJS\\(\\{"([^"]+)"`).exec(all);
    found.set(packageOf(definition?.[1] ?? entry[1]!), name);
  }
  return found;
}

before(() => buildDist(), { timeout: 180_000 });

describe('dist/bundle/ holds nothing that only works from node_modules', () => {
  it('no bundled code that runs finds files by __dirname, __filename or require.resolve', () => {
    const users = pathUsers();
    const unexpected = [...users].filter(([pkg]) => !(pkg in NEVER_RUN_PATH_USERS)).flatMap(([, uses]) => uses);
    assert.deepEqual(unexpected, [], 'load these packages from node_modules: `external` in scripts/build-server.mjs');
    // The exceptions stay true: each is still in the bundle (and found by this scan).
    assert.deepEqual([...users.keys()].sort(), Object.keys(NEVER_RUN_PATH_USERS).sort());
  });

  it('the gateway never starts a pino transport, so the bundled transport code stays unreached', () => {
    const offenders: string[] = [];
    const scan = (dir: string) => {
      for (const entry of readdirSync(dir, { withFileTypes: true })) {
        const path = join(dir, entry.name);
        if (entry.isDirectory()) scan(path);
        else if (/\bpino\.transport\(|\btransport\s*:/.test(readFileSync(path, 'utf8'))) offenders.push(path);
      }
    };
    scan(join(REPO_ROOT, 'src'));
    assert.deepEqual(offenders, []);
  });

  it('no CommonJS package reached through import() loses its named exports', () => {
    const chunks = defaultOnlyChunks();
    const unexpected = [...chunks].filter(([pkg]) => !(pkg in DEFAULT_ONLY_IMPORTS)).map(([pkg, f]) => `${pkg} (${f})`);
    assert.deepEqual(unexpected, [], 'load these packages from node_modules: `external` in scripts/build-server.mjs');
    assert.deepEqual([...chunks.keys()].sort(), Object.keys(DEFAULT_ONLY_IMPORTS).sort());
  });

  it('has the one-file YAML parser the config reader loads, parsing as the package does', () => {
    const load = createRequire(import.meta.url);
    const bundled = (load(join(BUNDLE, 'yaml.cjs')) as Record<string, unknown>).yaml as typeof import('yaml');
    const text = 'providers:\n  - {id: a, kind: openai, base_url: "https://x/v1"}\nmodels: []\nn: 1.5\nflag: yes\n';
    assert.deepEqual(bundled.parse(text), (load('yaml') as typeof import('yaml')).parse(text));
    assert.throws(() => bundled.parse('a: [1'), /Flow sequence|missing/i);
  });

  it("has Fastify's two schema compilers in one file, compiling as the packages do", () => {
    const load = createRequire(import.meta.url);
    const bundled = load(join(BUNDLE, 'schema-compilers.cjs')) as Record<string, unknown>;
    const { AjvCompiler } = bundled['@fastify/ajv-compiler'] as typeof import('@fastify/ajv-compiler');
    const { SerializerSelector } = bundled[
      '@fastify/fast-json-stringify-compiler'
    ] as typeof import('@fastify/fast-json-stringify-compiler');
    const schema = {
      type: 'object',
      required: ['n'],
      properties: { n: { anyOf: [{ type: 'integer' }, { type: 'null' }] } },
    };
    const validate = AjvCompiler()({}, { customOptions: {} })({ schema, method: 'POST', url: '/', httpPart: 'body' });
    assert.equal(validate({ n: 1 }), true);
    assert.equal(validate({ n: 'x' }), false);
    const serialize = SerializerSelector()({}, {})({ schema, method: 'GET', url: '/', httpStatus: '200' });
    assert.equal(serialize({ n: null, extra: 1 }), '{"n":null}');
  });
});
