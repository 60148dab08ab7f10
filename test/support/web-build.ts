import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { WEB_DIR } from '../../src/console/web-console.js';

/** Newest modification time of the files under `dir`. */
function newest(dir: string): number {
  let latest = 0;
  for (const entry of readdirSync(dir)) {
    const path = join(dir, entry);
    const stat = statSync(path);
    latest = Math.max(latest, stat.isDirectory() ? newest(path) : stat.mtimeMs);
  }
  return latest;
}

/**
 * Builds the web console into dist/web when it is missing (npm ci builds it in `prepare`) or
 * older than its sources, so a browser test never drives a stale bundle.
 */
export function ensureWebBuilt(): string {
  const index = join(WEB_DIR, 'index.html');
  if (!existsSync(index) || statSync(index).mtimeMs < newest('web')) {
    const result = spawnSync(process.execPath, ['scripts/build-web.mjs'], { stdio: 'inherit' });
    if (result.status !== 0) throw new Error('npm run build:web failed');
  }
  return WEB_DIR;
}
