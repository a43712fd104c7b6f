import { parseDurationMs } from './durations.ts';

/**
 * Token buckets for rate limiting (pure, no I/O): a bucket holds up to `capacity` tokens and refills
 * `capacity` every `perMs`; a request takes one token, or is refused with the time until one is back.
 */
export interface RateLimit {
  capacity: number;
  perMs: number;
}

/** `<n>/<duration>` (`600/1m`, `20/s`, `10000/1h`); `0`, `off` (or empty): no limit (undefined). */
export function parseRateLimit(text: string): RateLimit | undefined {
  const value = text.trim().toLowerCase();
  if (value === '' || value === '0' || value === 'off') return undefined;
  const match = /^(\d+)\s*\/\s*(\S+)$/.exec(value);
  if (!match) throw new Error(`"${text}" is not a rate limit (use e.g. 600/1m, 20/s, or off)`);
  const capacity = Number(match[1]);
  const duration = match[2] as string;
  const perMs = parseDurationMs(/^\d/.test(duration) ? duration : `1${duration}`);
  if (capacity === 0) return undefined;
  if (perMs <= 0) throw new Error(`"${text}": the duration must be positive`);
  return { capacity, perMs };
}

export type TakeResult = { allowed: true } | { allowed: false; retryAfterMs: number };

/** Buckets by key, kept in memory; full buckets are forgotten once there are many. */
export class TokenBuckets {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();

  constructor(
    readonly limit: RateLimit,
    private readonly maxKeys = 50_000,
  ) {}

  private refilled(bucket: { tokens: number; at: number }, now: number): number {
    const elapsed = Math.max(0, now - bucket.at);
    return Math.min(this.limit.capacity, bucket.tokens + (elapsed * this.limit.capacity) / this.limit.perMs);
  }

  take(key: string, now: number): TakeResult {
    const bucket = this.buckets.get(key) ?? { tokens: this.limit.capacity, at: now };
    const tokens = this.refilled(bucket, now);
    if (tokens < 1) {
      this.buckets.set(key, { tokens, at: now });
      return {
        allowed: false,
        retryAfterMs: Math.ceil(((1 - tokens) * this.limit.perMs) / this.limit.capacity),
      };
    }
    this.buckets.set(key, { tokens: tokens - 1, at: now });
    if (this.buckets.size > this.maxKeys) this.sweep(now);
    return { allowed: true };
  }

  /** Forgets every bucket that has refilled: it behaves exactly like a new one. */
  private sweep(now: number): void {
    for (const [key, bucket] of this.buckets) {
      if (this.refilled(bucket, now) >= this.limit.capacity) this.buckets.delete(key);
    }
  }

  get size(): number {
    return this.buckets.size;
  }
}
