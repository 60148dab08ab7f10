/**
 * Clients that keep sending while a test changes something under them (a reload, a rotation, a
 * certificate renewal): `workers` loops each run `work` back to back until stopped, and every
 * failure is kept with what it was, so a test can assert none happened.
 */
export interface SteadyLoad {
  failures: string[];
  /** Calls completed so far, failed or not. */
  completed(): number;
  /** Resolves once `n` more calls completed than when it was called. */
  more(n: number): Promise<void>;
  stop(): Promise<void>;
}

export function steadyLoad(workers: number, work: (worker: number, call: number) => Promise<void>): SteadyLoad {
  const failures: string[] = [];
  let completed = 0;
  let stopped = false;
  const waiters: Array<{ at: number; wake: () => void }> = [];
  const loops = Array.from({ length: workers }, async (_, worker) => {
    for (let call = 0; !stopped; call++) {
      try {
        await work(worker, call);
      } catch (error) {
        failures.push(`worker ${worker} call ${call}: ${(error as Error).message}`);
      }
      completed++;
      for (const waiter of waiters.filter((w) => completed >= w.at)) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.wake();
      }
    }
  });
  return {
    failures,
    completed: () => completed,
    more: (n) => new Promise<void>((wake) => waiters.push({ at: completed + n, wake })),
    async stop() {
      stopped = true;
      await Promise.all(loops);
      for (const waiter of waiters.splice(0)) waiter.wake();
    },
  };
}
