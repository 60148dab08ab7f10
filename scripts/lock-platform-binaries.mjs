#!/usr/bin/env node
// opencode-ai lists one optional binary package per platform. A registry that carries only some
// of them (this project's CI mirror has the linux-x64 ones) makes `npm install` leave the others
// out of package-lock.json, and then `npm ci` refuses the lock as out of sync. This writes the
// missing entries with their platform fields, so `npm ci` skips them here and fetches the right
// one on other platforms. Run it after `npm install` changes the lock: `node scripts/lock-platform-binaries.mjs`.
import { readFileSync, writeFileSync } from 'node:fs';

const LOCK = new URL('../package-lock.json', import.meta.url);
const lock = JSON.parse(readFileSync(LOCK, 'utf8'));
const packages = lock.packages;
let added = 0;
for (const [path, entry] of Object.entries(packages)) {
  if (!entry.optionalDependencies || !path.endsWith('node_modules/opencode-ai')) continue;
  for (const [name, version] of Object.entries(entry.optionalDependencies)) {
    const key = `node_modules/${name}`;
    if (packages[key]) continue;
    const match = /^opencode-(darwin|linux|windows)-(arm64|x64)(-baseline)?(-musl)?$/.exec(name);
    if (!match) throw new Error(`unknown platform package ${name}`);
    const [, os, cpu, , musl] = match;
    packages[key] = {
      version,
      cpu: [cpu],
      dev: true,
      optional: true,
      os: [os === 'windows' ? 'win32' : os],
      ...(musl ? { libc: ['musl'] } : {}),
    };
    added++;
  }
}
lock.packages = Object.fromEntries(
  Object.entries(packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a.localeCompare(b))),
);
writeFileSync(LOCK, `${JSON.stringify(lock, null, 2)}\n`);
console.log(`package-lock.json: ${added} platform entries added`);
