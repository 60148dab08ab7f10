import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { WEB_DIR } from '../../src/console/web-console.js';

/** Builds the web console into dist/web when it is missing (npm ci builds it in `prepare`). */
export function ensureWebBuilt(): string {
  if (!existsSync(join(WEB_DIR, 'index.html'))) {
    const result = spawnSync(process.execPath, ['scripts/build-web.mjs'], { stdio: 'inherit' });
    if (result.status !== 0) throw new Error('npm run build:web failed');
  }
  return WEB_DIR;
}
