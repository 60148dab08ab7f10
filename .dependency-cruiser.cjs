// The floors of src/, lowest first (docs/ARCHITECTURE.md, "Floors"). A module may import its own
// floor and the floors below it, never one above; no import cycles anywhere. Checked by
// `npm run layers` (scripts/check-layers.mjs), part of `npm run lint` and so of `npm test`.
//
// Placement of the folders the issue left open: metrics (the prom-client registry) and telemetry
// (OpenTelemetry tracing) are instruments every floor may record into, so they sit on the ground
// floor and import only config and canonical types; the catalogue (models, prices, upstream
// targets) is data the providers' floor already knows how to reach, so it sits beside them; offload
// (the worker pool that tokenizes and compresses big inputs off the event loop) runs the adapters'
// CPU-heavy functions, so it sits on their floor and imports them, never the reverse (the local
// provider's offloaded answerer is handed to it by the wiring).
// A folder holds one floor: src/server/ is the HTTP kit every surface builds on (Fastify app
// factory, listener, TLS, body parsing, the outbound address guard), src/wiring/ starts the surfaces.
/** @type {{ name: string, paths: string[] }[]} */
const FLOORS = [
  { name: 'foundation', paths: ['config', 'secrets', 'tokenize', 'canonical', 'metrics', 'telemetry'] },
  { name: 'adapters', paths: ['providers', 'store', 'compress', 'catalogue', 'offload', 'server'] },
  { name: 'accounting', paths: ['metering', 'limits', 'gateway-tools'] },
  { name: 'core', paths: ['pipeline'] },
  { name: 'surfaces', paths: ['gateway', 'console', 'collector'] },
  { name: 'wiring', paths: ['wiring'] },
  { name: 'entry', paths: ['cli'] },
];

/** One regular expression matching every module on the given floors. */
function floorPattern(floors) {
  const alternatives = floors.flatMap((floor) => floor.paths.map((p) => `${p}/`));
  return `^src/(${alternatives.join('|')})`;
}

const upwardRules = FLOORS.slice(0, -1).map((floor, index) => ({
  name: `no-upward-import-from-${floor.name}`,
  comment: `The ${floor.name} floor (${floor.paths.join(', ')}) may not import a floor above it.`,
  severity: 'error',
  from: { path: floorPattern([floor]) },
  to: { path: floorPattern(FLOORS.slice(index + 1)) },
}));

/**
 * Two folders of one floor that import each other are one module split in two: neither can be
 * read, changed or moved alone. dependency-cruiser's rules judge one import at a time (its folder
 * cycles mix folder depths: src/a against src/b/c), so this rule is judged over the whole import
 * graph, by scripts/check-layers.mjs with `twoWayFolderImports`.
 */
const noTwoWayFolders = {
  name: 'no-two-way-folders',
  comment: 'Two folders of one floor import each other: move what they share down, or pick one direction.',
  severity: 'error',
};

/** The top folder of src/ a module sits in ('src/limits/x.ts' → 'limits'), or undefined for src/'s own files. */
function topFolder(path) {
  return /^src\/([^/]+)\//.exec(path)?.[1];
}

/**
 * Every pair of folders of one floor with imports both ways, each with the imports that make it
 * (for the message): `modules` is dependency-cruiser's `output.modules`.
 * @returns {{ rule: typeof noTwoWayFolders, folders: [string, string], imports: string[] }[]}
 */
function twoWayFolderImports(modules) {
  const floorOf = new Map(FLOORS.flatMap((floor) => floor.paths.map((path) => [path, floor.name])));
  /** 'a→b' → the imports from folder a into folder b. */
  const edges = new Map();
  for (const module of modules) {
    const from = topFolder(module.source);
    for (const dependency of module.dependencies) {
      const to = topFolder(dependency.resolved);
      if (!from || !to || from === to || floorOf.get(from) !== floorOf.get(to)) continue;
      const key = `${from}→${to}`;
      if (!edges.has(key)) edges.set(key, []);
      edges.get(key).push(`${module.source} → ${dependency.resolved}`);
    }
  }
  const pairs = [];
  for (const [key, imports] of edges) {
    const [from, to] = key.split('→');
    const back = edges.get(`${to}→${from}`);
    if (from < to && back) pairs.push({ rule: noTwoWayFolders, folders: [from, to], imports: [...imports, ...back] });
  }
  return pairs;
}

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'An import cycle makes two modules one; split out what they share instead.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'no-unplaced-folder',
      comment: 'Every folder of src/ has a floor: add a new one to FLOORS in .dependency-cruiser.cjs.',
      severity: 'error',
      from: { path: '^src/', pathNot: floorPattern(FLOORS) },
      to: {},
    },
    ...upwardRules,
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)node_modules/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default'] },
  },
  FLOORS,
  twoWayFolderImports,
};
