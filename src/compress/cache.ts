/**
 * Agents resend the same tool outputs on every turn, so a result is usually filtered many
 * times. Filters are pure, which makes their output safe to memoise; the bound keeps a long
 * running gateway from growing without limit.
 */
export class BoundedCache<V> {
  private readonly map = new Map<string, { value: V; weight: number }>();
  private chars = 0;

  constructor(private readonly maxChars: number) {}

  get(key: string): V | undefined {
    return this.map.get(key)?.value;
  }

  /** `weight` approximates the value's size in characters; the key counts too. */
  set(key: string, value: V, weight: number): void {
    const cost = key.length + weight;
    if (cost > this.maxChars / 4 || this.map.has(key)) return;
    this.map.set(key, { value, weight: cost });
    this.chars += cost;
    // Oldest first: a Map iterates in insertion order.
    for (const [k, entry] of this.map) {
      if (this.chars <= this.maxChars) break;
      this.chars -= entry.weight;
      this.map.delete(k);
    }
  }

  /** The memoised value of `key`, computed and stored on a miss. */
  getOrCompute(key: string, compute: (key: string) => V, weigh: (value: V) => number): V {
    const known = this.map.get(key);
    if (known !== undefined) return known.value;
    const value = compute(key);
    this.set(key, value, weigh(value));
    return value;
  }

  clear(): void {
    this.map.clear();
    this.chars = 0;
  }
}

const caches: { clear(): void }[] = [];

export function registerCache<C extends { clear(): void }>(cache: C): C {
  caches.push(cache);
  return cache;
}

/** Forgets every memoised result (tests and the cold benchmark run). */
export function clearCompressionCaches(): void {
  for (const c of caches) c.clear();
}
