import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const LOGGER = fileURLToPath(new URL('../../src/server/logger.ts', import.meta.url));

/** Logs `megabytes` of lines into a stderr pipe nobody reads; prints the heap used when done. */
const FLOOD = `
  const { createLogger } = await import(${JSON.stringify(LOGGER)});
  const logger = createLogger('info');
  const text = 'x'.repeat(1000);
  for (let i = 0; i < ${200} * 1000; i++) logger.info({ i, text }, 'line');
  globalThis.gc?.();
  process.stdout.write(JSON.stringify({ heapUsed: process.memoryUsage().heapUsed }) + '\\n');
  process.exit(0);
`;

describe('logger', () => {
  it('drops lines past its buffer when nothing reads stderr, instead of growing without bound', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', '--expose-gc', '--input-type=module', '-e', FLOOD], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    // stderr is never read: its pipe fills after 64 KB and every later write waits.
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += String(chunk);
      // Measured: now stderr may drain, so that the exit's flush of what is held can finish.
      if (out.endsWith('\n')) child.stderr.resume();
    });
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    assert.equal(code, 0);
    const { heapUsed } = JSON.parse(out.trim()) as { heapUsed: number };
    // 200 MB of lines were logged; what is held stays near the 8 MB cap.
    assert.ok(heapUsed < 64 * 1024 * 1024, `heap used ${(heapUsed / 1048576).toFixed(1)} MB`);
  });
});
