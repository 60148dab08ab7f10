/**
 * A Fastify schema-compiler factory (ajv's or fast-json-stringify's) that counts the routes it
 * compiles: what the lazy validator and serializer tests assert on.
 */
export function countingCompiler<Externals, Options, Route, Compiled>(
  base: (externals: Externals, options: Options) => (route: Route) => Compiled,
): { factory: (externals: Externals, options: Options) => (route: Route) => Compiled; compiled: () => number } {
  let compiled = 0;
  return {
    factory: (externals, options) => {
      const compile = base(externals, options);
      return (route) => {
        compiled++;
        return compile(route);
      };
    },
    compiled: () => compiled,
  };
}
