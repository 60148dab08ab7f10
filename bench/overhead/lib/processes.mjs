// Child processes of the benchmark: every one is tracked and killed by its pid (on normal end,
// on error and on Ctrl-C). Their stdout/stderr go to files in the run's temp dir, never through
// a pipe into the bench process, so reading logs costs the load generator no CPU and a chatty
// server can never block on a full pipe.
import { spawn } from 'node:child_process';
import { openSync, closeSync, readFileSync, readdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';

const children = new Set();

/**
 * Spawns `node <args>`; stdout/stderr to `<logDir>/<name>.out|.err`. `ipc` gives our own scripts
 * a channel whose loss makes them exit even if the bench is killed with SIGKILL.
 */
export function spawnNode(name, args, { cwd, env, logDir, ipc = false, launcher = [] }) {
  const outFile = join(logDir, `${name}.out`);
  const errFile = join(logDir, `${name}.err`);
  const out = openSync(outFile, 'a');
  const err = openSync(errFile, 'a');
  // `launcher`: a command that runs node itself in the same process (valgrind), so `pid` is still node's.
  const [command, ...commandArgs] = [...launcher, process.execPath, ...args];
  const child = spawn(command, commandArgs, {
    cwd,
    env,
    stdio: ipc ? ['ignore', out, err, 'ipc'] : ['ignore', out, err],
  });
  closeSync(out);
  closeSync(err);
  const entry = { name, child, pid: child.pid, outFile, errFile, exited: false, exitCode: null, signal: null };
  child.on('exit', (code, signal) => {
    entry.exited = true;
    entry.exitCode = code;
    entry.signal = signal;
  });
  child.on('error', () => {
    entry.exited = true;
  });
  children.add(entry);
  return entry;
}

export function tail(file, max = 1500) {
  try {
    const text = readFileSync(file, 'utf8');
    return text.length > max ? '…' + text.slice(-max) : text;
  } catch {
    return '';
  }
}

/** Waits for the first stdout line that is JSON with event === 'listening'. */
export async function waitForListening(entry, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (entry.exited) {
      throw new Error(
        `${entry.name} exited (code ${entry.exitCode}, signal ${entry.signal}) before listening.\nstderr: ${tail(entry.errFile)}`,
      );
    }
    for (const line of tail(entry.outFile, 1 << 20).split('\n')) {
      if (!line.startsWith('{')) continue;
      try {
        const parsed = JSON.parse(line);
        if (parsed && parsed.event === 'listening') return parsed;
      } catch {
        /* not a JSON line */
      }
    }
    await sleep(50);
  }
  throw new Error(
    `${entry.name} printed no listening line within ${timeoutMs} ms.\nstdout: ${tail(entry.outFile)}\nstderr: ${tail(entry.errFile)}`,
  );
}

/** Polls `probe()` until it resolves truthy (e.g. a server that prints no machine-readable line). */
export async function waitUntil(entry, probe, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  let lastError;
  while (Date.now() < deadline) {
    if (entry.exited)
      throw new Error(
        `${entry.name} exited (code ${entry.exitCode}) before it was ready.\nstderr: ${tail(entry.errFile)}`,
      );
    try {
      if (await probe()) return;
    } catch (error) {
      lastError = error;
    }
    await sleep(100);
  }
  throw new Error(`${entry.name} not ready within ${timeoutMs} ms: ${lastError?.message ?? 'probe never succeeded'}`);
}

/** SIGTERM, then SIGKILL after `graceMs` if still alive. */
export async function stopChild(entry, graceMs = 3000) {
  if (!entry) return;
  children.delete(entry);
  if (entry.exited) return;
  try {
    process.kill(entry.pid, 'SIGTERM');
  } catch {
    return;
  }
  const deadline = Date.now() + graceMs;
  while (!entry.exited && Date.now() < deadline) await sleep(25);
  if (!entry.exited) {
    try {
      process.kill(entry.pid, 'SIGKILL');
    } catch {
      /* already gone */
    }
    while (!entry.exited && Date.now() < deadline + 2000) await sleep(25);
  }
}

export async function stopAll() {
  await Promise.all([...children].map((entry) => stopChild(entry)));
}

/** Last resort in a synchronous 'exit' handler: SIGKILL whatever is left, by pid. */
export function killAllSync() {
  for (const entry of children) {
    if (!entry.exited) {
      try {
        process.kill(entry.pid, 'SIGKILL');
      } catch {
        /* already gone */
      }
    }
  }
  children.clear();
}

/**
 * Runs a benchmark's `main` and exits with the code it returns (0 for none) once every child is
 * stopped; children left at any exit are killed. On a failure: `describeFailure(error)` on stderr,
 * the children stopped, then `afterFailure` (e.g. where the logs were kept), exit code 1.
 */
export function runMain(main, describeFailure, afterFailure = () => undefined) {
  process.on('exit', killAllSync);
  main().then(
    async (code) => {
      await stopAll();
      process.exit(code ?? 0);
    },
    async (error) => {
      process.stderr.write(describeFailure(error));
      await stopAll();
      afterFailure();
      process.exit(1);
    },
  );
}

/** Resident set size now and its peak so far (VmRSS / VmHWM), in KiB, from /proc. */
export function memoryOf(pid) {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const rss = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? NaN);
    const hwm = Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? NaN);
    return { rssKiB: rss, hwmKiB: hwm };
  } catch {
    return { rssKiB: NaN, hwmKiB: NaN };
  }
}

/** A port free on 127.0.0.1 right now (for servers that cannot listen on port 0 and report it). */
export function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Machine-wide CPU ticks from /proc/stat: all (idle included) and busy. */
export function machineTicks() {
  try {
    const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1, 9).map(Number);
    const total = fields.reduce((s, v) => s + v, 0);
    return { total, busy: total - fields[3] - fields[4] };
  } catch {
    return { total: NaN, busy: NaN };
  }
}

/** CPU ticks (user + system) used so far by one process. */
/**
 * CPU ticks of each thread of a process, by thread id (Node names its threads alike, so the id
 * is what tells them apart: the main thread's is the process id).
 */
export function threadTicks(pid) {
  const byThread = new Map();
  let tasks;
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return byThread;
  }
  for (const tid of tasks) {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      byThread.set(Number(tid), Number(fields[11]) + Number(fields[12]));
    } catch {
      // The thread ended between the listing and the read.
    }
  }
  return byThread;
}

export function processTicks(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return NaN;
  }
}

/**
 * Nanoseconds one thread has spent runnable but waiting for a CPU (Linux schedstat, second
 * field): how long an event loop queued for a core behind other threads and processes.
 */
export function runQueueWaitNs(pid, tid = pid) {
  try {
    return Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[1]);
  } catch {
    return NaN;
  }
}
