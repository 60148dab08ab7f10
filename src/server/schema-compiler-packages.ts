import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

/**
 * @fastify/ajv-compiler and @fastify/fast-json-stringify-compiler (with the ajv they share), built
 * into one CommonJS file by scripts/build-server.mjs and required on the first route compilation
 * (lazy-validators.ts, lazy-serializers.ts). From node_modules they are ~120 modules to find,
 * read and wrap on that first request; from one file, one. The same path from dist/server/ and
 * dist/bundle/; absent when running from src/ (tests), where the packages themselves are loaded.
 */
const ONE_FILE = fileURLToPath(new URL('../bundle/schema-compilers.cjs', import.meta.url));
const load = createRequire(import.meta.url);
let oneFile: Record<string, unknown> | null | undefined;

export type SchemaCompilerPackage = '@fastify/ajv-compiler' | '@fastify/fast-json-stringify-compiler';

export function schemaCompilerPackage(name: SchemaCompilerPackage): unknown {
  oneFile ??= existsSync(ONE_FILE) ? (load(ONE_FILE) as Record<string, unknown>) : null;
  return oneFile ? oneFile[name] : load(name);
}
