/**
 * Paces the start of TLS handshakes: a new connection's handshake runs in a later turn of the
 * event loop, at most `budgetMs` of them per turn, so the requests of connections already open
 * are served between them; and the waiting handshakes are taken from their client addresses in
 * turn, so one address (or a few) opening connections by the hundred does not make a new client
 * elsewhere wait behind all of them.
 *
 * Why: a server-side handshake is a few hundred microseconds of synchronous crypto, run when the
 * ClientHello arrives. The event loop handles every socket that became readable in one go, so
 * hundreds of connections arriving together (a slowloris attacker replacing the connections the
 * header deadline cut, a load balancer reconnecting) were hundreds of handshakes in a row, and a
 * client's request on an open connection waited behind all of them: stalls of 100–300 ms under
 * bench/attack's slowloris. Deferred, a burst costs the open connections at most one budget per
 * turn. The same idea as HAProxy's `tune.maxaccept` (connections accepted per loop iteration).
 * In arrival order alone, a new client's handshake still waited behind the attacker's queue
 * (up to 200 in flight: ~130 ms, the slowest kind of request under attack); in turn by address
 * it waits for at most one handshake per other address with some waiting.
 *
 * Within one address, arrival order. The listener's handshake deadline (from the accept) keeps
 * counting while a connection waits, so a backlog larger than the service can handshake in that
 * time drains itself (cut connections are skipped, at no cost). One pacer per instance, shared
 * by its listeners: the CPU is the process's.
 */
export class HandshakePacer {
  /** Waiting handshakes by client address; the Map's order is the rotation (served → to the back). */
  private readonly byAddress = new Map<string, Array<() => void>>();
  private count = 0;
  private scheduled = false;

  /** `budgetMs`: handshake time run per turn of the event loop (at least one handshake a turn). */
  constructor(private readonly budgetMs = 5) {}

  /** Handshakes waiting their turn. */
  get waiting(): number {
    return this.count;
  }

  /** Runs `start` in a later turn of the event loop, after other I/O ready by then, in turn with other addresses. */
  enqueue(address: string, start: () => void): void {
    const queue = this.byAddress.get(address);
    if (queue) queue.push(start);
    else this.byAddress.set(address, [start]);
    this.count++;
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(this.drain);
    }
  }

  private readonly drain = (): void => {
    const started = performance.now();
    try {
      do this.next()();
      while (this.count > 0 && performance.now() - started < this.budgetMs);
    } finally {
      // Also after a throw (the error goes on as an uncaught exception): the rest still run.
      if (this.count > 0)
        setImmediate(this.drain); // the next turn polls for I/O first
      else this.scheduled = false;
    }
  };

  /** The oldest handshake of the address whose turn it is; that address goes to the back. */
  private next(): () => void {
    const [address, queue] = this.byAddress.entries().next().value as [string, Array<() => void>];
    const start = queue.shift()!;
    this.byAddress.delete(address);
    if (queue.length > 0) this.byAddress.set(address, queue);
    this.count--;
    return start;
  }
}
