// The measurements of run.mjs: every target started, checked and warmed up, then measured in
// interleaved rounds. A target that fails to start, answers its check wrongly or fails under
// load is recorded as failed rows; the others go on.
import { measure, summarize } from './load.mjs';
import { memoryOf, sleep } from './processes.mjs';
import { checkTarget } from './requests.mjs';

/** `buildError`: why the gateway could not be built (it is then reported as failed to start). */
export async function measureTargets(ctx, targets, options, buildError, log) {
  const runs = [];
  const failures = {};
  const targetInfo = {};
  const live = [];
  const failRows = (id, modes, reason) => {
    for (const mode of modes)
      for (const c of options.concurrencies)
        runs.push({ target: id, mode, connections: c, failed: reason.split('\n')[0] });
  };
  try {
    // Every target is started, checked and warmed up first and stays up until the end, so the
    // measurements can be interleaved (see below). An idle server costs the others nothing.
    for (const target of targets) {
      const info = (targetInfo[target.id] = {
        label: target.label,
        protocol: target.protocol,
        checks: {},
        warmups: {},
      });
      let running;
      try {
        if (target.id === 'gateway' && buildError) throw new Error(buildError);
        running = await target.start();
      } catch (error) {
        failures[target.id] = `did not start: ${error.message}`;
        info.error = failures[target.id];
        log(`${target.id}: FAILED to start: ${error.message.split('\n')[0]}`);
        failRows(target.id, options.modes, failures[target.id]);
        continue;
      }
      const entry = { target, running, info, modes: new Set() };
      live.push(entry);
      info.pid = running.pid;
      info.url = running.url;
      info.note = running.note ?? null;
      info.idleRssKiB = memoryOf(running.pid).rssKiB;
      log(`${target.id}: ${running.url} (pid ${running.pid}, idle RSS ${(info.idleRssKiB / 1024).toFixed(1)} MB)`);
      for (const mode of options.modes) {
        const problem = await checkTarget(running, mode);
        info.checks[mode] = problem ?? 'ok';
        if (problem) {
          failures[`${target.id}/${mode}`] = problem;
          log(`${target.id} ${mode}: FAILED check: ${problem}`);
          failRows(target.id, [mode], `check request: ${problem.replace(/\s+/g, ' ')}`);
          continue;
        }
        entry.modes.add(mode);
        if (options.warmupS > 0) {
          const spec = { url: running.url, headers: running.headers, body: running.body(mode), pid: running.pid };
          const warm = await measure({
            ...spec,
            connections: Math.min(10, Math.max(...options.concurrencies)),
            durationS: options.warmupS,
          });
          info.warmups[mode] = { ok: warm.ok, non2xx: warm.non2xx, errors: warm.errors };
        }
      }
    }

    // For each mode and concurrency: `rounds` rounds, each measuring every target once, the
    // order rotated from round to round, so slow drift of the machine (other load, thermal,
    // GC of the bench itself) falls on every target alike instead of on whichever ran last.
    for (const mode of options.modes) {
      for (const c of options.concurrencies) {
        const active = live.filter((e) => e.modes.has(mode));
        const collected = new Map(active.map((e) => [e.target.id, []]));
        for (let round = 0; round < options.rounds; round++) {
          const order = active.map((_, i) => active[(i + round) % active.length]);
          for (const e of order) {
            if (!collected.has(e.target.id)) continue;
            await sleep(150);
            const { running } = e;
            try {
              const raw = await measure({
                url: running.url,
                headers: running.headers,
                body: running.body(mode),
                pid: running.pid,
                otherPids: [ctx.upstream.pid],
                connections: c,
                durationS: options.durationS,
              });
              collected.get(e.target.id).push(raw);
              log(
                `${mode} c=${c} round ${round + 1}/${options.rounds} ${e.target.id}: ${raw.rps.toFixed(0)} req/s, ` +
                  `RSS ${(raw.peakRssKiB / 1024).toFixed(1)} MB, non-2xx ${raw.non2xx}, errors ${raw.errors}, other processes' CPU ${(raw.foreignCpu * 100).toFixed(0)}%`,
              );
            } catch (error) {
              failures[`${e.target.id}/${mode}`] = `failed during load: ${error.message}`;
              log(`${e.target.id} ${mode}: FAILED during load: ${error.message.split('\n')[0]}`);
              collected.delete(e.target.id);
              e.modes.delete(mode);
              failRows(e.target.id, [mode], failures[`${e.target.id}/${mode}`]);
            }
          }
        }
        for (const [id, raws] of collected) if (raws.length) runs.push({ target: id, mode, ...summarize(raws) });
      }
    }
  } finally {
    for (const { running, info } of live) {
      info.processPeakKiB = memoryOf(running.pid).hwmKiB;
      await running.stop();
    }
  }
  return { runs, failures, targetInfo };
}
