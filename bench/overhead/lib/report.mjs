// Tables, the ratios the issue asks for (with their targets), and the JSON result file.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const SHORT = {
  direct: 'direct',
  'bare-https': 'bare-https',
  'bare-http': 'bare-http',
  gateway: 'gateway',
  portkey: 'portkey',
};

const NOISE_FLOOR_MS = 0.02;
const fmt = (v, digits = 3) => (Number.isFinite(v) ? v.toFixed(digits) : '—');
const mb = (kib) => (Number.isFinite(kib) ? (kib / 1024).toFixed(1) : '—');
const pad = (s, n) => String(s).padStart(n);
const padEnd = (s, n) => String(s).padEnd(n);

/** Adds added-latency fields (target − direct, same mode and concurrency) to every run. */
export function withAddedLatency(runs) {
  for (const run of runs) {
    const base = runs.find(
      (r) => r.target === 'direct' && r.mode === run.mode && r.connections === run.connections && !r.failed,
    );
    run.addedMs =
      base && !run.failed
        ? { p50: run.latencyMs.p50 - base.latencyMs.p50, p99: run.latencyMs.p99 - base.latencyMs.p99 }
        : { p50: NaN, p99: NaN };
  }
  return runs;
}

export function runsTable(runs, targets, mode, concurrencies) {
  const lines = [];
  lines.push(
    `${padEnd('target', 12)} ${pad('conc', 4)} ${pad('p50 ms', 8)} ${pad('p99 ms', 8)} ${pad('+p50 ms', 8)} ${pad('+p99 ms', 8)} ${pad('req/s', 9)} ${pad('RSS MB', 7)} ${pad('2xx', 8)} ${pad('non-2xx', 8)} ${pad('errors', 7)} ${pad('B/resp', 7)} ${pad('other%', 6)}`,
  );
  for (const t of targets) {
    for (const c of concurrencies) {
      const run = runs.find((r) => r.target === t.id && r.mode === mode && r.connections === c);
      if (!run) continue;
      if (run.failed) {
        lines.push(`${padEnd(SHORT[t.id], 12)} ${pad(c, 4)} FAILED: ${run.failed}`);
        continue;
      }
      const l = run.latencyMs;
      const flag = run.non2xx > 0 || run.errors > 0 ? `  <-- ${describeProblems(run)}` : '';
      lines.push(
        `${padEnd(SHORT[t.id], 12)} ${pad(c, 4)} ${pad(fmt(l.p50), 8)} ${pad(fmt(l.p99), 8)} ${pad(t.id === 'direct' ? '—' : fmt(run.addedMs.p50), 8)} ${pad(t.id === 'direct' ? '—' : fmt(run.addedMs.p99), 8)} ${pad(fmt(run.rps, 0), 9)} ${pad(mb(run.peakRssKiB), 7)} ${pad(run.ok, 8)} ${pad(run.non2xx, 8)} ${pad(run.errors, 7)} ${pad(fmt(run.bytesPerResponse, 0), 7)} ${pad(fmt(run.foreignCpu * 100, 0), 6)}${flag}`,
      );
    }
  }
  return lines.join('\n');
}

function describeProblems(run) {
  const codes = Object.entries(run.statusCodes)
    .filter(([code]) => !code.startsWith('2'))
    .map(([code, n]) => `${n}× HTTP ${code}`);
  const parts = [...codes];
  if (run.errors > 0) parts.push(`${run.errors} errors (${run.timeouts} timeouts, ${run.resets} resets)`);
  return parts.join(', ');
}

/** The issue's acceptance ratios, per mode and concurrency. */
export function computeRatios(runs, modes, concurrencies, failures) {
  const get = (id, mode, c) => runs.find((r) => r.target === id && r.mode === mode && r.connections === c);
  const specs = [
    {
      name: 'gateway +p50 ÷ bare-https +p50',
      target: '≤ 1.2',
      ok: (v) => v <= 1.2,
      num: ['gateway', (r) => r.addedMs.p50],
      den: ['bare-https', (r) => r.addedMs.p50],
    },
    {
      name: 'gateway +p99 ÷ bare-https +p99',
      target: '≤ 1.2',
      ok: (v) => v <= 1.2,
      num: ['gateway', (r) => r.addedMs.p99],
      den: ['bare-https', (r) => r.addedMs.p99],
    },
    {
      name: 'gateway +p50 ÷ portkey +p50',
      target: '≤ 0.5',
      ok: (v) => v <= 0.5,
      num: ['gateway', (r) => r.addedMs.p50],
      den: ['portkey', (r) => r.addedMs.p50],
    },
    {
      name: 'gateway req/s ÷ portkey req/s',
      target: '≥ 5',
      ok: (v) => v >= 5,
      num: ['gateway', (r) => r.rps],
      den: ['portkey', (r) => r.rps],
    },
    {
      name: 'gateway RSS ÷ portkey RSS',
      target: '≤ 0.5',
      ok: (v) => v <= 0.5,
      num: ['gateway', (r) => r.peakRssKiB],
      den: ['portkey', (r) => r.peakRssKiB],
    },
    // The floor's own ratios for the targets measured against Portkey: where the bare pass-through
    // misses one, no Node gateway doing its work over HTTPS can meet it in that run.
    {
      name: 'floor: bare-https +p50 ÷ portkey +p50',
      target: '≤ 0.5',
      ok: (v) => v <= 0.5,
      floorOf: 'gateway +p50 ÷ portkey +p50',
      num: ['bare-https', (r) => r.addedMs.p50],
      den: ['portkey', (r) => r.addedMs.p50],
    },
    {
      name: 'floor: bare-https req/s ÷ portkey req/s',
      target: '≥ 5',
      ok: (v) => v >= 5,
      floorOf: 'gateway req/s ÷ portkey req/s',
      num: ['bare-https', (r) => r.rps],
      den: ['portkey', (r) => r.rps],
    },
    {
      name: 'floor: bare-https RSS ÷ portkey RSS',
      target: '≤ 0.5',
      ok: (v) => v <= 0.5,
      floorOf: 'gateway RSS ÷ portkey RSS',
      num: ['bare-https', (r) => r.peakRssKiB],
      den: ['portkey', (r) => r.peakRssKiB],
    },
    {
      name: 'ref: bare-http +p50 ÷ portkey +p50',
      target: '',
      ok: null,
      num: ['bare-http', (r) => r.addedMs.p50],
      den: ['portkey', (r) => r.addedMs.p50],
    },
    {
      name: 'ref: bare-https +p50 ÷ bare-http +p50',
      target: '',
      ok: null,
      num: ['bare-https', (r) => r.addedMs.p50],
      den: ['bare-http', (r) => r.addedMs.p50],
    },
  ];
  const out = [];
  for (const mode of modes) {
    for (const spec of specs) {
      for (const c of concurrencies) {
        const n = get(spec.num[0], mode, c);
        const d = get(spec.den[0], mode, c);
        const entry = {
          mode,
          connections: c,
          ratio: spec.name,
          target: spec.target || null,
          floorOf: spec.floorOf ?? null,
          value: null,
          pass: null,
          note: null,
        };
        const missing = [spec.num[0], spec.den[0]].find((id) => !get(id, mode, c));
        if (missing) {
          entry.note = failures[missing] ? `n/a: ${missing} failed` : `n/a: ${missing} not run`;
        } else if (n.failed || d.failed) {
          entry.note = `n/a: ${n.failed ? spec.num[0] : spec.den[0]} failed`;
        } else {
          const nv = spec.num[1](n);
          const dv = spec.den[1](d);
          // An added latency under 20 µs is within the noise: a ratio over it means nothing.
          const floor = spec.name.includes('+p') ? NOISE_FLOOR_MS : 0;
          if (!(dv > floor) || !Number.isFinite(nv)) entry.note = `n/a: ${spec.den[0]} ${fmt(dv)}${floor ? ' ms' : ''}`;
          else {
            entry.value = nv / dv;
            entry.pass = spec.ok ? spec.ok(entry.value) : null;
          }
          if ((n.non2xx || n.errors || d.non2xx || d.errors) && entry.value !== null)
            entry.note = 'non-2xx or errors in these runs';
        }
        out.push(entry);
      }
    }
  }
  return out;
}

export function ratiosTable(ratios, modes, concurrencies) {
  const lines = [];
  const width = 40;
  for (const mode of modes) {
    lines.push(
      `${padEnd(`[${mode}] ratio`, width)} ${padEnd('target', 6)} ${concurrencies.map((c) => pad(`c=${c}`, 22)).join(' ')}`,
    );
    const names = [...new Set(ratios.filter((r) => r.mode === mode).map((r) => r.ratio))];
    for (const name of names) {
      const row = ratios.filter((r) => r.mode === mode && r.ratio === name);
      const cells = concurrencies.map((c) => {
        const r = row.find((x) => x.connections === c);
        if (!r) return pad('', 22);
        if (r.value === null) return pad(r.note.length > 22 ? r.note.slice(0, 21) + '…' : r.note, 22);
        const verdict = r.pass === null ? '' : r.pass ? ' ok' : ' MISS';
        return pad(`${r.value.toFixed(2)}${verdict}${r.note ? '!' : ''}`, 22);
      });
      lines.push(`${padEnd(name, width)} ${padEnd(row[0].target ?? '', 6)} ${cells.join(' ')}`);
    }
  }
  return lines.join('\n');
}

export function writeJson(resultsDir, payload, name = 'overhead') {
  mkdirSync(resultsDir, { recursive: true });
  const stamp = new Date(payload.started).toISOString().replace(/[:.]/g, '-');
  const file = join(resultsDir, `${name}-${stamp}.json`);
  writeFileSync(
    file,
    JSON.stringify(payload, (_k, v) => (typeof v === 'number' && !Number.isFinite(v) ? null : v), 2) + '\n',
  );
  return file;
}

/**
 * Cells where the gateway misses a target that the bare pass-through misses too in the same run:
 * those are out of reach for any Node gateway on this machine, whatever the gateway does.
 */
export function floorMisses(ratios) {
  return ratios
    .filter((r) => r.floorOf && r.pass === false)
    .map((floor) => {
      const gateway = ratios.find(
        (r) => r.ratio === floor.floorOf && r.mode === floor.mode && r.connections === floor.connections,
      );
      return {
        mode: floor.mode,
        connections: floor.connections,
        ratio: floor.floorOf,
        target: floor.target,
        floor: floor.value,
        gateway: gateway?.value ?? null,
      };
    });
}
