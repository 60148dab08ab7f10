import type { AddressPenaltySettings } from '../config/connection-settings.js';

/** Addresses remembered at most, boxed and with recent cuts each: bounds the memory an attacker with many addresses can take. */
const MAX_TRACKED = 100_000;

/**
 * The address penalty box: a client address (connection-gate.ts's `addressKey`) whose
 * connections keep being cut at the handshake or header deadline without ever completing a
 * request (`cuts` such cuts within `windowMs`) is refused on accept for `cooldownMs`, before any
 * TLS work is spent on it.
 *
 * Why: the deadlines bound how long a slow or silent connection is held, not how often it comes
 * back. Against them, slowloris turns into a stream of handshakes: holding 6,000 connections with
 * a 10 s header deadline is ~600 (resumed) TLS handshakes a second, each a fraction of a
 * millisecond of the event loop, on the cores the real clients need (bench/attack). Refused at
 * accept, a connection costs an accept and a reset.
 *
 * Only the offending address is boxed; a client that completes requests is never counted, and
 * another address is never affected. Behind a NAT, everyone sharing the address is; behind a
 * trusted proxy, only the client its `X-Forwarded-For` names (client-penalties.ts). Each listener
 * has its own box, so an address boxed on one (an anonymous collector flood) is still served by
 * the others (docs/decisions.md, "Connection discipline").
 */
export class AddressPenalties {
  /** Times (ms) of an address's recent cuts, oldest first, at most `cuts`; the Map's order is least recently cut first. */
  private readonly recentCuts = new Map<string, number[]>();
  /** Per address, since when and how many requests came while it was told to wait; least recently counted first. */
  private readonly ignored = new Map<string, { since: number; count: number }>();
  /** Boxed addresses and when their cool-down ends; the Map's order is the order they end in (one cool-down for all). */
  private readonly boxed = new Map<string, number>();

  constructor(
    private readonly settings: AddressPenaltySettings,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** Addresses refused right now (expired ones are dropped lazily). */
  get boxedCount(): number {
    this.dropExpired(this.now());
    return this.boxed.size;
  }

  /** Whether connections from `address` are refused now. */
  isBoxed(address: string): boolean {
    return this.remainingMs(address) > 0;
  }

  /** Milliseconds left of `address`'s cool-down; 0 when it is not boxed. */
  remainingMs(address: string): number {
    if (this.boxed.size === 0) return 0;
    const until = this.boxed.get(address);
    if (until === undefined) return 0;
    const left = until - this.now();
    if (left > 0) return left;
    this.boxed.delete(address);
    return 0;
  }

  /** A connection from `address` was cut at a deadline without completing a request; true when that boxed it. */
  cut(address: string): boolean {
    const { cuts, windowMs, cooldownMs } = this.settings;
    if (cuts === 0) return false;
    const now = this.now();
    const times = this.recentCuts.get(address) ?? [];
    this.recentCuts.delete(address);
    times.push(now);
    while (now - times[0]! > windowMs) times.shift();
    if (times.length >= cuts) {
      this.box(address, now, cooldownMs);
      return true;
    }
    this.recentCuts.set(address, times);
    trim(this.recentCuts);
    return false;
  }

  /**
   * A request from `address` came while it was told to wait (a 429 with Retry-After it ignores);
   * true when the address is boxed, now or already: its connections are then closed after the
   * answer and new ones refused on accept. Why: a refused request still costs a TLS record, an
   * HTTP parse and an answer; a client that ignores the refusals thousands of times a minute
   * takes the cores the real clients need (bench/attack, flood), and refused at accept it
   * costs an accept and a reset.
   */
  ignoredRefusal(address: string): boolean {
    const { ignoredRefusals, windowMs, cooldownMs } = this.settings;
    if (ignoredRefusals === 0) return false;
    if (this.isBoxed(address)) return true;
    const now = this.now();
    let counter = this.ignored.get(address);
    this.ignored.delete(address);
    if (!counter || now - counter.since > windowMs) counter = { since: now, count: 0 };
    if (++counter.count >= ignoredRefusals) {
      this.box(address, now, cooldownMs);
      return true;
    }
    this.ignored.set(address, counter);
    trim(this.ignored);
    return false;
  }

  private box(address: string, now: number, cooldownMs: number): void {
    this.dropExpired(now);
    this.boxed.delete(address);
    this.boxed.set(address, now + cooldownMs);
    trim(this.boxed);
  }

  private dropExpired(now: number): void {
    for (const [address, until] of this.boxed) {
      if (until > now) return;
      this.boxed.delete(address);
    }
  }
}

/** Forgets the oldest entries beyond MAX_TRACKED. */
function trim(map: Map<string, unknown>): void {
  for (const key of map.keys()) {
    if (map.size <= MAX_TRACKED) return;
    map.delete(key);
  }
}
