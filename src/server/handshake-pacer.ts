/**
 * Paces the start of TLS handshakes: a new connection's handshake runs in a later turn of the
 * event loop, at most `budgetMs` of them per turn, so the requests of connections already open
 * are served between them.
 *
 * Why: a server-side handshake is a few hundred microseconds of synchronous crypto, run when the
 * ClientHello arrives. The event loop handles every socket that became readable in one go, so
 * hundreds of connections arriving together (a slowloris attacker replacing the connections the
 * header deadline cut, a load balancer reconnecting) were hundreds of handshakes in a row, and a
 * client's request on an open connection waited behind all of them: stalls of 100–300 ms under
 * bench/attack's slowloris. Deferred, a burst costs the open connections at most one budget per
 * turn. The same idea as HAProxy's `tune.maxaccept` (connections accepted per loop iteration).
 *
 * FIFO: new connections start their handshakes in arrival order, and the listener's handshake
 * deadline (from the accept) keeps counting while one waits, so a backlog larger than the
 * service can handshake in that time drains itself (cut connections are skipped, at no cost).
 * One pacer per instance, shared by its listeners: the CPU is the process's.
 */
export class HandshakePacer {
  private queue: Array<() => void> = [];
  private head = 0;
  private scheduled = false;

  /** `budgetMs`: handshake time run per turn of the event loop (at least one handshake a turn). */
  constructor(private readonly budgetMs = 5) {}

  /** Handshakes waiting their turn. */
  get waiting(): number {
    return this.queue.length - this.head;
  }

  /** Runs `start` in a later turn of the event loop, after other I/O ready by then. */
  enqueue(start: () => void): void {
    this.queue.push(start);
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(this.drain);
    }
  }

  private readonly drain = (): void => {
    const started = performance.now();
    try {
      do {
        const start = this.queue[this.head]!;
        this.queue[this.head++] = noop; // not kept reachable until the array is compacted
        start();
      } while (this.head < this.queue.length && performance.now() - started < this.budgetMs);
    } finally {
      // Also after a throw (the error goes on as an uncaught exception): the rest still run.
      this.afterTurn();
    }
  };

  private afterTurn(): void {
    if (this.head === this.queue.length) {
      this.queue = [];
      this.head = 0;
      this.scheduled = false;
      return;
    }
    if (this.head >= 1024) {
      this.queue = this.queue.slice(this.head);
      this.head = 0;
    }
    // setImmediate: the next turn polls for I/O (without blocking) before it runs this again.
    setImmediate(this.drain);
  }
}

function noop(): void {}
