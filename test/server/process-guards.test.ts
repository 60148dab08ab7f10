import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';

describe('logUnhandledRejections', () => {
  it('logs a stray rejection with its stack and the process goes on', () => {
    const script = `
      import pino from 'pino';
      import { logUnhandledRejections } from './src/server/process-guards.ts';
      logUnhandledRejections(pino());
      Promise.reject(new Error('connection reset at the wrong moment'));
      setTimeout(() => { console.log('still serving'); }, 50);
    `;
    const run = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      encoding: 'utf8',
      timeout: 20_000,
    });
    assert.equal(run.status, 0, run.stderr);
    assert.match(run.stdout, /unhandled promise rejection/);
    assert.match(run.stdout, /connection reset at the wrong moment/);
    assert.match(run.stdout, /"stack":"Error: connection reset/);
    assert.match(run.stdout, /still serving/);
  });
});
