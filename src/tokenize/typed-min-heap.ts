/** The storage of a heap: integers, or doubles for keys wider than 32 bits. */
type NumberArray = Int32Array | Float64Array;

/**
 * A binary min-heap of numbers in a typed array that doubles when full: no boxing and no
 * allocation per push, which the merge queue (merge-queue.ts) does once per candidate merge.
 * Its rank heap stays an Int32Array: ranks index other arrays, and a double read back from a
 * Float64Array made the queue's hot loop some 5 % slower.
 */
export class TypedMinHeap<A extends NumberArray> {
  size = 0;
  /** Sift moves made in total: the merge queue's step count includes them. */
  steps = 0;
  private values: A;

  constructor(
    private readonly allocate: (length: number) => A,
    private readonly initialLength: number,
  ) {
    this.values = allocate(initialLength);
  }

  /** The smallest value (size > 0). */
  peek(): number {
    return this.values[0]!;
  }

  /** The value at position `i` < size: each value once, in no particular order. */
  at(i: number): number {
    return this.values[i]!;
  }

  push(value: number): void {
    if (this.size === this.values.length) {
      const grown = this.allocate(this.values.length * 2);
      grown.set(this.values);
      this.values = grown;
    }
    const heap = this.values;
    let i = this.size++;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (heap[parent]! <= value) break;
      heap[i] = heap[parent]!;
      i = parent;
      this.steps++;
    }
    heap[i] = value;
  }

  /** Removes the smallest value (size > 0). */
  pop(): void {
    const heap = this.values;
    const size = --this.size;
    if (size === 0) return;
    const last = heap[size]!;
    let i = 0;
    for (;;) {
      let child = 2 * i + 1;
      if (child >= size) break;
      if (child + 1 < size && heap[child + 1]! < heap[child]!) child++;
      if (heap[child]! >= last) break;
      heap[i] = heap[child]!;
      i = child;
      this.steps++;
    }
    heap[i] = last;
  }

  /** Storage back to its first length (when empty: one huge piece must not stay resident). */
  release(): void {
    this.values = this.allocate(this.initialLength);
  }
}
