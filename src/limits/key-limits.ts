import type { ApplicableLimits, WindowLimitRow, WindowLimits } from '../store/window-limits.js';
import type { LimitClock } from './limit-clock.js';
import type { MinuteRates, RateRefusal, RateRule } from './minute-rates.js';
import type { SpendWindow } from './reservation.js';
import { windowAt, type SpendPeriod } from './windows.js';

/** How long a key's limits are read from memory before the store is asked again (like the key cache). */
export const KEY_LIMITS_TTL_MS = 1_000;
/** Keys whose limits are held at once; past this the oldest entry is dropped. */
const MAX_CACHED_KEYS = 10_000;

/** The limits one key's requests are held to, read once a second at most. */
export interface KeyLimits {
  /** The spend limits of the key, its member and its group. */
  spend: readonly WindowLimitRow[];
  requests: readonly RateRule[];
  tokens: readonly RateRule[];
  offsetMinutes: number;
}

const NONE: KeyLimits = { spend: [], requests: [], tokens: [], offsetMinutes: 0 };

interface KeyRef {
  id: string;
  organizationId: string;
  memberId: string | null;
}

/**
 * The window limits of keys (docs/limits.md): which apply to a key (its own, its member's, the
 * member's group's), the windows its spend is reserved in now, and the per-minute rates it
 * draws on. A limit set or removed in the console applies within `KEY_LIMITS_TTL_MS` on every instance.
 */
export class KeyLimitDirectory {
  private readonly cache = new Map<string, { until: number; limits: Promise<KeyLimits> }>();

  constructor(
    private readonly store: WindowLimits,
    private readonly rates: MinuteRates,
    readonly clock: LimitClock,
    private readonly ttlMs = KEY_LIMITS_TTL_MS,
  ) {}

  forKey(key: KeyRef): Promise<KeyLimits> {
    const now = Date.now();
    const cached = this.cache.get(key.id);
    if (cached && cached.until > now) return cached.limits;
    const limits = this.store.applicableTo(key).then(keyLimits);
    // A failed read is not remembered: the next request asks again.
    limits.catch(() => this.cache.delete(key.id));
    this.cache.delete(key.id);
    this.cache.set(key.id, { until: now + this.ttlMs, limits });
    if (this.cache.size > MAX_CACHED_KEYS) this.cache.delete(this.cache.keys().next().value!);
    return limits;
  }

  /** The window of each spend limit that holds `now` (the organization's offset applied). */
  spendWindows(limits: KeyLimits, now = this.clock.now()): SpendWindow[] {
    return limits.spend.map((limit) => {
      const period = limit.period as SpendPeriod;
      const window = windowAt(period, now, limits.offsetMinutes);
      return {
        limitId: limit.id,
        subject: { kind: limit.subject_kind, id: limit.subject_id },
        period,
        windowStart: window.start,
        windowEnd: window.end,
        limitMicroUsd: Number(limit.amount),
      };
    });
  }

  /** Counts one request against the key's and member's request rates. */
  takeRequest(limits: KeyLimits): Promise<RateRefusal | undefined> {
    return limits.requests.length === 0 ? Promise.resolve(undefined) : this.rates.take(limits.requests, 1);
  }

  /** Counts a request's tokens (counted input and the output it may produce) against the token rates. */
  takeTokens(limits: KeyLimits, tokens: number): Promise<RateRefusal | undefined> {
    return limits.tokens.length === 0 ? Promise.resolve(undefined) : this.rates.take(limits.tokens, tokens);
  }
}

function keyLimits(applicable: ApplicableLimits): KeyLimits {
  if (applicable.limits.length === 0) return NONE;
  const rule = (limit: WindowLimitRow): RateRule => ({
    limitId: limit.id,
    subject: { kind: limit.subject_kind, id: limit.subject_id },
    metric: limit.metric as RateRule['metric'],
    perMinute: Number(limit.amount),
  });
  return {
    spend: applicable.limits.filter((l) => l.metric === 'spend' && l.period !== 'minute'),
    requests: applicable.limits.filter((l) => l.metric === 'requests' && l.subject_kind !== 'group').map(rule),
    tokens: applicable.limits.filter((l) => l.metric === 'tokens' && l.subject_kind !== 'group').map(rule),
    offsetMinutes: applicable.offsetMinutes,
  };
}
