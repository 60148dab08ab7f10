import { requireBundled } from '../config/bundled-package.js';

/**
 * @fastify/ajv-compiler and @fastify/fast-json-stringify-compiler (with the ajv they share), built
 * into one CommonJS file by scripts/build-server.mjs and required on the first route compilation
 * (lazy-validators.ts, lazy-serializers.ts). From node_modules they are ~120 modules to find,
 * read and wrap on that first request; from one file, one.
 */
export type SchemaCompilerPackage = '@fastify/ajv-compiler' | '@fastify/fast-json-stringify-compiler';

export function schemaCompilerPackage(name: SchemaCompilerPackage): unknown {
  return requireBundled('schema-compilers.cjs', name);
}
