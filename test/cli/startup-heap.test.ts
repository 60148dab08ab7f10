import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { REPO_ROOT } from './cli-process.js';

/**
 * The start-up hold on the young generation works only while this Node's V8 reads the growth
 * factor at each growth; if an upgrade changes that, this fails instead of the idle RSS quietly
 * growing back by 14 MB. Run in a child: V8 flags are process-wide.
 */
const SCRIPT = `
import { getHeapSpaceStatistics } from 'node:v8';
const { holdYoungGeneration, releaseYoungGeneration } = await import(${JSON.stringify(
  pathToFileURL(join(REPO_ROOT, 'src', 'cli', 'startup-heap.ts')).href,
)});
const youngMb = () => getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size / 2 ** 20;
// Start-up-like allocation: most of it survives a scavenge or two.
const churn = (n) => { let kept = []; for (let i = 0; i < n; i++) { kept.push({ i, s: 'x' + i }); if (kept.length > 200000) kept = []; } };
const before = youngMb();
holdYoungGeneration();
churn(2e6);
const held = youngMb();
releaseYoungGeneration();
churn(4e6);
process.stdout.write(JSON.stringify({ before, held, released: youngMb() }));
`;

describe('startup-heap', () => {
  it('keeps the young generation from growing while held and lets it grow to the maximum once released', () => {
    const result = spawnSync(
      process.execPath,
      ['--max-semi-space-size=8', '--import', 'tsx', '--input-type=module', '-e', SCRIPT],
      { cwd: REPO_ROOT, encoding: 'utf8', timeout: 60_000 },
    );
    assert.equal(result.status, 0, result.stderr);
    const { before, held, released } = JSON.parse(result.stdout) as { before: number; held: number; released: number };
    assert.ok(before < 16, `young generation before the hold: ${before} MB`);
    assert.equal(held, before, `young generation while held: ${held} MB`);
    assert.equal(released, 16, `young generation after release: ${released} MB`);
  });
});
