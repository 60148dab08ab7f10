import type { SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import { schemaCompilerPackage } from './schema-compiler-packages.js';

/**
 * Fastify's response serializer compiler (fast-json-stringify, the one Fastify uses when none is
 * given), compiling each route's response schema (per status code) on the first answer that uses
 * it instead of when the app starts. fast-json-stringify gives a schema with `anyOf`, `oneOf` or
 * `if` (every nullable or union field of TypeBox) an ajv instance of its own, with the JSON
 * Schema meta-schema compiled into it: the console's response schemas made ~40 of them at
 * start-up, ~4.5 MB of an idle process's RSS (bench/README.md, "Issue 29: idle memory after issue 30"),
 * for pages a given deployment may never open. The first answer of a route pays its compilation
 * (ms) instead; the bytes sent are unchanged. A schema fast-json-stringify refuses would fail
 * that route's first answer instead of the start: test/server/lazy-serializers.test.ts compiles
 * every response schema of the three surfaces.
 */
type BuildSerializer = ReturnType<typeof SerializerSelector>;
type RouteDefinition = Parameters<ReturnType<BuildSerializer>>[0];
type Serialize = (data: unknown) => string;

/**
 * fast-json-stringify (and the ajv it brings) is loaded on the first compilation too, not at
 * start-up (schema-compiler-packages.ts).
 */
const fastJsonStringify = (): BuildSerializer =>
  (
    schemaCompilerPackage('@fastify/fast-json-stringify-compiler') as { SerializerSelector: typeof SerializerSelector }
  ).SerializerSelector();

/** Compilations not done yet, of every app of the process: answers no request has needed so far. */
const pending = new Set<() => Serialize>();

/** `schemaController.compilersFactory.buildSerializer` for Fastify; fast-json-stringify's, each schema compiled on first use. */
export function lazySerializerFactory(build?: BuildSerializer): BuildSerializer {
  return (externalSchemas, options) => {
    let compile: ReturnType<BuildSerializer> | undefined;
    return (route: RouteDefinition) => {
      let serialize: Serialize | undefined;
      const compiled = (): Serialize => {
        if (!serialize) {
          serialize = (compile ??= (build ??= fastJsonStringify())(externalSchemas, options))(route) as Serialize;
          pending.delete(compiled);
        }
        return serialize;
      };
      pending.add(compiled);
      return ((data: unknown) => (serialize ?? compiled())(data)) as ReturnType<ReturnType<BuildSerializer>>;
    };
  };
}

/**
 * Compiles now every response schema no answer has needed yet, in every app of the process;
 * returns how many. Throws what fast-json-stringify throws for a schema it refuses.
 */
export function compilePendingSerializers(): number {
  const all = [...pending];
  for (const compiled of all) compiled();
  return all.length;
}
