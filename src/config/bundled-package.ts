import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const load = createRequire(import.meta.url);

/**
 * Requires a package loaded on first use from its one-file build in dist/bundle/ (made by
 * scripts/build-server.mjs, which exports each package by its name), else from node_modules: one file to read instead of dozens of
 * modules, each a module object, a wrapper and its unminified source on the heap. `../bundle/`
 * is the same directory from dist/config/ and dist/bundle/; running from src/ (tests) there is
 * none, and the package itself is loaded.
 */
export function requireBundled(file: string, packageName: string): unknown {
  const built = fileURLToPath(new URL(`../bundle/${file}`, import.meta.url));
  return existsSync(built) ? (load(built) as Record<string, unknown>)[packageName] : load(packageName);
}
