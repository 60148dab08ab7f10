import type { AjvCompiler } from '@fastify/ajv-compiler';
import { schemaCompilerPackage } from './schema-compiler-packages.js';

/**
 * Fastify's validator compiler (ajv, the one Fastify uses when none is given), compiling each
 * route's schema on the route's first request instead of when the app starts. Compiling every
 * route of a surface at start-up (ajv's generated code, its schema environments and the garbage of
 * making them) was the largest single item of an idle process: 7 MB resident gateway-only, 15 MB
 * with the console's ~100 routes, most of which a given deployment never calls. The first request
 * of a route pays its compilation (ms) instead; validation and its errors are unchanged. A schema
 * ajv refuses would fail that route's first request instead of the start:
 * test/server/lazy-validators.test.ts compiles every route schema of the three surfaces.
 */
type BuildCompiler = ReturnType<typeof AjvCompiler>;

/**
 * ajv itself (and its JTD build, which @fastify/ajv-compiler loads too) is loaded on the first
 * compilation as well (schema-compiler-packages.ts): a plain `import` would run its ~90 modules
 * at start-up, and the bundle keeps them out of the code it loads (scripts/build-server.mjs).
 */
const ajvCompiler = (): BuildCompiler =>
  (schemaCompilerPackage('@fastify/ajv-compiler') as { AjvCompiler: typeof AjvCompiler }).AjvCompiler();
type RouteDefinition = Parameters<ReturnType<BuildCompiler>>[0];

interface LazyValidate {
  (data: unknown, context?: object): unknown;
  errors?: unknown;
  schemaEnv?: unknown;
}

/** Compilations not done yet, of every app of the process: routes that had no request so far. */
const pending = new Set<() => unknown>();

/** `schemaController.compilersFactory.buildValidator` for Fastify; one ajv per app and option set, made on first use. */
export function lazyValidatorFactory(build?: BuildCompiler): BuildCompiler {
  return (externalSchemas, options) => {
    let compile: ReturnType<BuildCompiler> | undefined;
    return (route: RouteDefinition) => {
      // Fastify lower-cases the keys of a headers schema for its own compiler only: refused at
      // start-up here rather than matched case-sensitively (no route has one).
      if (route.httpPart === 'headers')
        throw new Error(`${route.method} ${route.url}: headers schemas are not supported (server/lazy-validators.ts)`);
      let validate: ReturnType<ReturnType<BuildCompiler>> | undefined;
      const compiled = () => {
        if (!validate) {
          validate = (compile ??= (build ??= ajvCompiler())(externalSchemas, options))(route);
          pending.delete(compiled);
        }
        return validate;
      };
      pending.add(compiled);
      const lazy: LazyValidate = (data, context) => {
        const check = validate ?? compiled();
        const valid = check(data, context as Parameters<typeof check>[1]);
        // Fastify reads the errors of a failed validation from the function it called.
        lazy.errors = check.errors;
        return valid;
      };
      // Fastify passes ajv's functions the request as parent (so a root value can be replaced)
      // when they carry a `schemaEnv`: this one forwards it to ajv's.
      lazy.schemaEnv = true;
      // Fastify calls the function and reads `errors`; the rest of ajv's type (its schema and
      // environment) exists once compiled, on `validate`.
      return lazy as unknown as ReturnType<ReturnType<BuildCompiler>>;
    };
  };
}

/**
 * Compiles now every route schema no request has needed yet, in every app of the process; returns
 * how many. Throws what ajv throws for a schema it refuses (test/server/route-schemas.test.ts).
 */
export function compilePendingValidators(): number {
  const all = [...pending];
  for (const compiled of all) compiled();
  return all.length;
}
