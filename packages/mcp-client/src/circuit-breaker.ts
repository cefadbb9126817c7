export const CircuitState = {
  /** Attempts allowed; consecutive failures are being counted. */
  Closed: "closed",
  /** Failing for too long: no attempts until the cool-down ends. */
  Open: "open",
  /** Cool-down over: one probe attempt decides between closed and open (longer). */
  HalfOpen: "half-open",
} as const;

export type CircuitState = (typeof CircuitState)[keyof typeof CircuitState];

export interface CircuitBreakerOptions {
  /** Consecutive failures, since the last success, that open the circuit (5)... */
  failureThreshold?: number;
  /**
   * ...once they have gone on for at least this long, in milliseconds (10 000): a restart that
   * recovers sooner never opens the circuit, however fast the attempts were.
   */
  openAfterMs?: number;
  /** The first cool-down, in milliseconds (30 000). */
  cooldownMs?: number;
  /** Each failed probe multiplies the cool-down by this (2), for crash loops... */
  cooldownFactor?: number;
  /** ...up to this many milliseconds (300 000). */
  maxCooldownMs?: number;
  /** Clock, for tests. */
  now?: () => number;
}

/**
 * Counts consecutive failures since the last success. It opens when `failureThreshold` of them
 * span at least `openAfterMs`; after the cool-down it half-opens and lets exactly one probe
 * through: a success closes it and clears everything, a failure opens it again with the
 * cool-down grown by `cooldownFactor` (capped at `maxCooldownMs`).
 */
export class CircuitBreaker {
  readonly failureThreshold: number;
  readonly openAfterMs: number;
  readonly cooldownMs: number;
  readonly cooldownFactor: number;
  readonly maxCooldownMs: number;
  readonly #now: () => number;
  #failures = 0;
  #firstFailureAt: number | undefined;
  #openedAt: number | undefined;
  #cooldown: number;
  #probing = false;

  constructor(options: CircuitBreakerOptions = {}) {
    this.failureThreshold = Math.max(1, options.failureThreshold ?? 5);
    this.openAfterMs = Math.max(0, options.openAfterMs ?? 10_000);
    this.cooldownMs = Math.max(0, options.cooldownMs ?? 30_000);
    this.cooldownFactor = Math.max(1, options.cooldownFactor ?? 2);
    this.maxCooldownMs = Math.max(this.cooldownMs, options.maxCooldownMs ?? 300_000);
    this.#cooldown = this.cooldownMs;
    this.#now = options.now ?? Date.now;
  }

  get state(): CircuitState {
    if (this.#openedAt === undefined) return CircuitState.Closed;
    return this.#now() - this.#openedAt >= this.#cooldown
      ? CircuitState.HalfOpen
      : CircuitState.Open;
  }

  /** Failures since the last success. */
  get consecutiveFailures(): number {
    return this.#failures;
  }

  /** The cool-down the circuit uses now (grown by failed probes). */
  get currentCooldownMs(): number {
    return this.#cooldown;
  }

  /** Milliseconds until an attempt is allowed (0 when it is allowed now). */
  msUntilAttempt(): number {
    if (this.#openedAt === undefined) return 0;
    return Math.max(0, this.#openedAt + this.#cooldown - this.#now());
  }

  recordFailure(): void {
    const now = this.#now();
    this.#failures++;
    if (this.#openedAt !== undefined) {
      // The probe failed (or a straggler while open): open again, for longer.
      if (this.#probing)
        this.#cooldown = Math.min(this.maxCooldownMs, this.#cooldown * this.cooldownFactor);
      this.#openedAt = now;
      this.#probing = false;
      return;
    }
    this.#firstFailureAt ??= now;
    if (this.#failures >= this.failureThreshold && now - this.#firstFailureAt >= this.openAfterMs)
      this.#openedAt = now;
  }

  recordSuccess(): void {
    this.#failures = 0;
    this.#firstFailureAt = undefined;
    this.#openedAt = undefined;
    this.#probing = false;
    this.#cooldown = this.cooldownMs;
  }

  /** True when an attempt may start now; in half-open state only the first caller gets one. */
  tryAttempt(): boolean {
    const state = this.state;
    if (state === CircuitState.Closed) return true;
    if (state === CircuitState.Open || this.#probing) return false;
    this.#probing = true;
    return true;
  }
}
