import { Gauge, type Registry } from 'prom-client';

/** Adds a reader to a summed gauge; the returned function takes it out again. */
export type TrackReader = (read: () => number) => () => void;

/**
 * A gauge whose value is read at scrape time from the parts that hold it (a queue, a pacer, a
 * budget), registered by the wiring: the metrics floor never imports what it measures. The
 * readers' values are summed; one reader tracked twice (a process-wide value read by each
 * gateway started in the process) counts once until both untrack it.
 */
export function summedGauge(name: string, help: string, registry: Registry): TrackReader {
  const readers = new Map<() => number, number>();
  new Gauge({
    name,
    help,
    registers: [registry],
    collect() {
      let sum = 0;
      for (const read of readers.keys()) sum += read();
      this.set(sum);
    },
  });
  return (read) => {
    readers.set(read, (readers.get(read) ?? 0) + 1);
    let tracked = true;
    return () => {
      if (!tracked) return;
      tracked = false;
      const count = readers.get(read)! - 1;
      if (count === 0) readers.delete(read);
      else readers.set(read, count);
    };
  };
}
