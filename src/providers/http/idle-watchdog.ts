/**
 * undici's own bodyTimeout runs on a coarse timer (about one second of resolution), so the
 * between-chunks timeout is enforced here. The clock stops while the consumer holds a chunk: a
 * slow client must not count against the upstream.
 */
export async function* withIdleTimeout<T>(source: AsyncIterable<T>, idleMs: number, onIdle: () => void): AsyncGenerator<T> {
  let timer: NodeJS.Timeout | undefined;
  const arm = (): void => {
    timer = setTimeout(onIdle, idleMs);
  };
  arm();
  try {
    for await (const item of source) {
      clearTimeout(timer);
      yield item;
      arm();
    }
  } finally {
    clearTimeout(timer);
  }
}
