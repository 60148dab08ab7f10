#!/usr/bin/env node
// `npm run layers`: runs dependency-cruiser over src/ with the floors of .dependency-cruiser.cjs
// and fails on any violation (an upward import, a cycle, a folder with no floor, two folders of
// one floor importing each other).
// Through the Node API rather than the `depcruise` CLI: the CLI refuses Node 20 (its engines
// field asks for 22+), while the API it wraps runs fine on the Node this project targets.
// Usage: node scripts/check-layers.mjs [--config <file>]   (from the directory holding src/)
import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import { cruise } from 'dependency-cruiser';

const args = process.argv.slice(2);
const configAt = args.indexOf('--config');
const configPath = resolve(configAt >= 0 ? args[configAt + 1] : '.dependency-cruiser.cjs');
const config = createRequire(import.meta.url)(configPath);

const result = await cruise(['src'], {
  ...config.options,
  validate: true,
  ruleSet: { forbidden: config.forbidden },
});
const violations = result.output.summary.violations;
for (const v of violations) {
  const detail = v.cycle ? `cycle ${[v.from, ...v.cycle.map((step) => step.name)].join(' → ')}` : `${v.from} → ${v.to}`;
  console.error(`${v.rule.name}: ${detail}`);
}
const twoWay = config.twoWayFolderImports?.(result.output.modules) ?? [];
for (const { rule, folders, imports } of twoWay) {
  console.error(`${rule.name}: src/${folders[0]} ⇄ src/${folders[1]} (${imports.join('; ')})`);
}
const total = violations.length + twoWay.length;
if (total > 0) {
  console.error(`\n${total} layering violation(s); the floors are in .dependency-cruiser.cjs.`);
  process.exit(1);
}
console.log(
  `layers: ${result.output.summary.totalCruised} modules, no upward import, no cycle, no two folders importing each other`,
);
