import type { Metric, Registry } from 'prom-client';

/**
 * Counters, gauges and histograms for the per-request hot path. prom-client's own validate the
 * labels, build a hash string and look it up on every `inc`/`observe`, even through a `labels()`
 * child (about 1 µs each, several per request). Here a child is resolved once per label set
 * (callers keep it) and an update is an addition. They register in a prom-client Registry like
 * its own metrics and expose the same families: `get()` returns what prom-client's would.
 */
type Labels = Record<string, string>;

interface MetricValue {
  labels: Record<string, string | number>;
  value: number;
  metricName?: string;
  sharedLabels?: Labels;
}

interface MetricObject {
  name: string;
  help: string;
  type: 'counter' | 'gauge' | 'histogram';
  values: MetricValue[];
  aggregator: 'sum';
}

abstract class LabelledMetric<Child> {
  readonly aggregator = 'sum';
  protected readonly children = new Map<string, { labels: Labels; child: Child }>();

  constructor(
    readonly name: string,
    readonly help: string,
    private readonly labelNames: readonly string[],
    registry: Registry,
  ) {
    registry.registerMetric(this as unknown as Metric);
  }

  abstract readonly type: MetricObject['type'];

  /** The child for these label values (in `labelNames` order); keep it rather than asking again per update. */
  labels(...values: string[]): Child {
    const id = values.join('\u0000');
    let entry = this.children.get(id);
    if (!entry) {
      if (values.length !== this.labelNames.length)
        throw new Error(`${this.name}: expected ${this.labelNames.length} label values, got ${values.length}`);
      const labels: Labels = {};
      this.labelNames.forEach((name, i) => (labels[name] = values[i]!));
      entry = { labels, child: this.create() };
      this.children.set(id, entry);
    }
    return entry.child;
  }

  /** What the registry formats as text (a histogram's own labels as `sharedLabels`, like prom-client). */
  async getForPromString(): Promise<MetricObject> {
    return { name: this.name, help: this.help, type: this.type, values: this.values(), aggregator: this.aggregator };
  }

  /** The JSON form: every value with all its labels. */
  async get(): Promise<MetricObject> {
    const values = this.values().map(({ sharedLabels, ...value }) =>
      sharedLabels ? { ...value, labels: { ...sharedLabels, ...value.labels } } : value,
    );
    return { name: this.name, help: this.help, type: this.type, values, aggregator: this.aggregator };
  }

  reset(): void {
    this.children.clear();
  }

  protected abstract create(): Child;
  protected abstract values(): MetricValue[];
}

export class CounterChild {
  value = 0;
  inc(by = 1): void {
    this.value += by;
  }
}

export class LabelledCounter extends LabelledMetric<CounterChild> {
  readonly type = 'counter';
  protected create(): CounterChild {
    return new CounterChild();
  }
  protected values(): MetricValue[] {
    return [...this.children.values()].map(({ labels, child }) => ({ labels, value: child.value }));
  }
}

export class GaugeChild {
  value = 0;
  inc(by = 1): void {
    this.value += by;
  }
  dec(by = 1): void {
    this.value -= by;
  }
}

export class LabelledGauge extends LabelledMetric<GaugeChild> {
  readonly type = 'gauge';
  protected create(): GaugeChild {
    return new GaugeChild();
  }
  protected values(): MetricValue[] {
    return [...this.children.values()].map(({ labels, child }) => ({ labels, value: child.value }));
  }
}

export class HistogramChild {
  /** Per bucket (not cumulative); the last slot counts values above every bound. */
  readonly counts: number[];
  sum = 0;
  count = 0;

  constructor(private readonly bounds: readonly number[]) {
    this.counts = new Array<number>(bounds.length + 1).fill(0);
  }

  observe(value: number): void {
    if (!Number.isFinite(value)) return;
    let i = 0;
    while (i < this.bounds.length && value > this.bounds[i]!) i++;
    this.counts[i]!++;
    this.sum += value;
    this.count++;
  }
}

export class LabelledHistogram extends LabelledMetric<HistogramChild> {
  readonly type = 'histogram';

  constructor(
    name: string,
    help: string,
    labelNames: readonly string[],
    private readonly bounds: readonly number[],
    registry: Registry,
  ) {
    super(name, help, labelNames, registry);
  }

  protected create(): HistogramChild {
    return new HistogramChild(this.bounds);
  }

  protected values(): MetricValue[] {
    const out: MetricValue[] = [];
    for (const { labels, child } of this.children.values()) {
      let cumulative = 0;
      this.bounds.forEach((bound, i) => {
        cumulative += child.counts[i]!;
        out.push({ labels: { le: bound }, value: cumulative, metricName: `${this.name}_bucket`, sharedLabels: labels });
      });
      out.push({ labels: { le: '+Inf' }, value: child.count, metricName: `${this.name}_bucket`, sharedLabels: labels });
      out.push({ labels: {}, value: child.sum, metricName: `${this.name}_sum`, sharedLabels: labels });
      out.push({ labels: {}, value: child.count, metricName: `${this.name}_count`, sharedLabels: labels });
    }
    return out;
  }
}
