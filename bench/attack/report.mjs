// The attack bench's printed report: one table row per attack, then the details of each.

export const fmt = (n) => (Number.isFinite(n) ? (n >= 100 ? n.toFixed(0) : n.toFixed(1)) : 'n/a');
export const pct = (r) => (Number.isFinite(r) ? `${(r * 100).toFixed(r >= 0.999 && r < 1 ? 2 : 1)} %` : 'n/a');

export function report(results, meta) {
  const lines = [];
  lines.push('');
  lines.push(
    `bench/attack — ${meta.started} — ${meta.cpus} CPUs, load average ${meta.loadBefore.map((l) => l.toFixed(1)).join(' ')} at start, ` +
      `${meta.loadAfter.map((l) => l.toFixed(1)).join(' ')} at the end`,
  );
  lines.push('');
  lines.push(
    '| attack | normal client ok | p50 idle → attack (ms) | p99 idle → attack (ms) | p99 ÷ idle p99 | gateway RSS idle → peak (MiB) | DB growth | gateway CPU idle → attack (cores) | attacker CPU (cores) | machine busy idle / attack | target |',
  );
  lines.push('|---|---|---|---|---|---|---|---|---|---|---|');
  for (const r of results) {
    const target = r.judged ? (r.pass ? 'met' : 'MISSED') : 'not judged';
    lines.push(
      `| ${r.attack} | ${pct(r.underAttack.successRate)} (idle ${pct(r.idle.successRate)}) | ${fmt(r.idle.p50)} → ${fmt(r.underAttack.p50)} | ` +
        `${fmt(r.idle.p99)} → ${fmt(r.underAttack.p99)} | ${r.p99Ratio.toFixed(2)} | ${r.rssMiB.idleMax.toFixed(0)} → ${r.rssMiB.attackMax.toFixed(0)} | ` +
        `${(r.database.growthBytes / 1048576).toFixed(1)} MiB | ${r.cpuCores.gatewayIdle.toFixed(2)} → ${r.cpuCores.gatewayAttack.toFixed(2)} | ` +
        `${r.cpuCores.attacker.toFixed(2)} | ${pct(r.machineBusy.idle)} / ${pct(r.machineBusy.attack)} | ${target} |`,
    );
  }
  lines.push('');
  for (const r of results) {
    lines.push(`${r.attack}:`);
    if (r.held)
      lines.push(`  attack connections open during the measurement: min ${r.held.min}, mean ${r.held.mean.toFixed(0)}`);
    lines.push(`  attacker during the measurement: ${JSON.stringify(r.attacker.duringMeasurement)}`);
    if (r.attacker.statuses && Object.keys(r.attacker.statuses).length)
      lines.push(`  attacker answers: ${JSON.stringify(r.attacker.statuses)}`);
    lines.push(`  service's connection counters: ${JSON.stringify(r.connectionCounts)}`);
    const { stored } = r;
    lines.push(
      `  collector events stored: ${stored.before.events} → ${stored.after.events} (${(stored.before.bytes / 1048576).toFixed(1)} → ` +
        `${(stored.after.bytes / 1048576).toFixed(1)} MiB of event JSON); quota ${stored.quota.events} events, ` +
        `${(stored.quota.bytes / 1048576).toFixed(0)} MiB: ${stored.withinQuota ? 'within' : 'EXCEEDED'}`,
    );
    const lag = r.eventLoopLagMs;
    lines.push(
      `  gateway event-loop delay p50/p99/max (ms): idle ${fmt(lag.idle.p50)}/${fmt(lag.idle.p99)}/${fmt(lag.idle.max)}, ` +
        `attack ${fmt(lag.attack.p50)}/${fmt(lag.attack.p99)}/${fmt(lag.attack.max)}`,
    );
    const queued = r.mainThreadQueuedMsPerS;
    lines.push(
      `  gateway main thread waiting for a CPU (ms per s, schedstat): idle ${fmt(queued.idle)}, attack ${fmt(queued.attack)}`,
    );
    if (Object.keys(r.underAttack.failures).length)
      lines.push(`  normal client failures: ${JSON.stringify(r.underAttack.failures)}`);
    lines.push(
      `  normal client per kind under attack (p50/p99 ms, ok/n): ` +
        Object.entries(r.underAttack.byKind)
          .map(([k, v]) => `${k} ${fmt(v.p50)}/${fmt(v.p99)} ${v.ok}/${v.n}`)
          .join(', '),
    );
  }
  return lines.join('\n');
}
