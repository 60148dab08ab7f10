/**
 * CPU profile of the benchmarked gateway child. Node refuses --cpu-prof in NODE_OPTIONS, so this
 * preload starts V8's profiler through the inspector and writes the profile when the process exits:
 *
 *   BENCH_GATEWAY_NODE_OPTIONS="--import $PWD/bench/collector/cpu-profile.mjs" node --import tsx bench/collector/run.ts
 *
 * The profile is written to BENCH_CPU_PROFILE_DIR (default: the system temp directory) as
 * gateway-<pid>.cpuprofile; open it in Chrome DevTools (Performance → Load profile).
 */
import { Session } from 'node:inspector';
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const session = new Session();
session.connect();
session.post('Profiler.enable');
session.post('Profiler.setSamplingInterval', { interval: 500 });
session.post('Profiler.start');
process.on('exit', () => {
  // The in-process session answers synchronously, so the profile is written before the process ends.
  session.post('Profiler.stop', (error, result) => {
    if (error) return;
    const file = join(process.env.BENCH_CPU_PROFILE_DIR ?? tmpdir(), `gateway-${process.pid}.cpuprofile`);
    writeFileSync(file, JSON.stringify(result.profile));
    process.stderr.write(`cpu profile: ${file}\n`);
  });
});
