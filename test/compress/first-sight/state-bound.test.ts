// The first-sight states (one per conversation prefix, kept so the next request continues from
// it) are bounded by an estimate of their heap, at most a sixteenth of the heap limit: under the
// soak's traffic with a 128 MB heap they filled it and the gateway ran out of memory
// (bench/README.md, "soak"). A child process with a 64 MB heap compresses thousands of distinct
// conversations; the states stay within the bound and the process finishes.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { REPO_ROOT } from '../../cli/cli-process.js';

describe('first-sight states under a capped heap', () => {
  it('stay within a sixteenth of the heap limit, counting their indexed lines', { timeout: 120_000 }, () => {
    const child = spawnSync(
      process.execPath,
      [
        '--max-old-space-size=64',
        '--import',
        'tsx',
        join(REPO_ROOT, 'test/compress/first-sight/state-bound-child.ts'),
        '4000',
      ],
      { cwd: REPO_ROOT, encoding: 'utf8', timeout: 110_000 },
    );
    assert.equal(child.status, 0, child.stderr);
    const held = JSON.parse(child.stdout.trim()) as {
      count: number;
      bytes: number;
      peak: number;
      limit: number;
      heapLimit: number;
    };
    assert.ok(held.limit <= held.heapLimit / 16, JSON.stringify(held));
    assert.ok(held.peak <= held.limit, `states peaked at ${held.peak} bytes over their bound ${held.limit}`);
    // 4,000 conversations of 60 indexed lines at ≥ 180 bytes a line would be ≥ 43 MB unbounded.
    assert.ok(held.count < 4000 && held.bytes >= held.count * 60 * 180, JSON.stringify(held));
  });
});
