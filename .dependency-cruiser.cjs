// The floors of src/, lowest first (docs/ARCHITECTURE.md, "Floors"). A module may import its own
// floor and the floors below it, never one above; no import cycles anywhere. Checked by
// `npm run layers` (scripts/check-layers.mjs), part of `npm run lint` and so of `npm test`.
//
// Placement of the folders the issue left open: metrics (the prom-client registry) and telemetry
// (OpenTelemetry tracing) are instruments every floor may record into, so they sit on the ground
// floor and import only config and canonical types; the catalogue (models, prices, upstream
// targets) is data the providers' floor already knows how to reach, so it sits beside them; offload
// (the worker pool that tokenizes and compresses big inputs off the event loop) runs the adapters'
// CPU-heavy functions, and the local provider calls it, so it sits on their floor.
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
};
