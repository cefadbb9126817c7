export const CircuitState = {
  /** Attempts allowed; failures are being counted. */
  Closed: "closed",
  /** Too many recent failures: no attempts until the cool-down ends. */
  Open: "open",
  /** Cool-down over: one trial attempt decides between closed and open. */
  HalfOpen: "half-open",
} as const;

export type CircuitState = (typeof CircuitState)[keyof typeof CircuitState];

export interface CircuitBreakerOptions {
  /** Failures within `windowMs` that open the circuit (5). */
  failureThreshold?: number;
  /** Sliding window for counting failures, in milliseconds (60 000). */
  windowMs?: number;
  /** How long the circuit stays open before the half-open trial, in milliseconds (30 000). */
  cooldownMs?: number;
  /** Clock, for tests. */
  now?: () => number;
}

/**
 * Counts failures in a sliding window. A success does not erase recent failures while closed,
 * so a server that connects and then crashes every time still trips the breaker; a success
 * in the half-open trial closes it and clears the count.
 */
export class CircuitBreaker {
  readonly failureThreshold: number;
  readonly windowMs: number;
  readonly cooldownMs: number;
  readonly #now: () => number;
  #failures: number[] = [];
  #openedAt: number | undefined;
  #trial = false;

  constructor(options: CircuitBreakerOptions = {}) {
    this.failureThreshold = Math.max(1, options.failureThreshold ?? 5);
    this.windowMs = options.windowMs ?? 60_000;
    this.cooldownMs = options.cooldownMs ?? 30_000;
    this.#now = options.now ?? Date.now;
  }

  get state(): CircuitState {
    if (this.#openedAt === undefined) return CircuitState.Closed;
    return this.#now() - this.#openedAt >= this.cooldownMs
      ? CircuitState.HalfOpen
      : CircuitState.Open;
  }

  /** Failures currently counted in the window. */
  get recentFailures(): number {
    this.#prune();
    return this.#failures.length;
  }

  /** Milliseconds until an attempt is allowed (0 when it is allowed now). */
  msUntilAttempt(): number {
    if (this.#openedAt === undefined) return 0;
    return Math.max(0, this.#openedAt + this.cooldownMs - this.#now());
  }

  recordFailure(): void {
    const now = this.#now();
    if (this.#openedAt !== undefined) {
      // The half-open trial failed (or a straggler failed while open): a fresh cool-down.
      this.#openedAt = now;
      this.#trial = false;
      return;
    }
    this.#failures.push(now);
    this.#prune();
    if (this.#failures.length >= this.failureThreshold) {
      this.#openedAt = now;
      this.#failures = [];
    }
  }

  recordSuccess(): void {
    if (this.#openedAt !== undefined && this.state === CircuitState.HalfOpen) {
      this.#openedAt = undefined;
      this.#trial = false;
      this.#failures = [];
    }
  }

  /** Claims the single half-open trial; true when an attempt may start now. */
  tryAttempt(): boolean {
    const state = this.state;
    if (state === CircuitState.Closed) return true;
    if (state === CircuitState.Open || this.#trial) return false;
    this.#trial = true;
    return true;
  }

  #prune(): void {
    const horizon = this.#now() - this.windowMs;
    while (this.#failures.length > 0 && (this.#failures[0] ?? 0) <= horizon) this.#failures.shift();
  }
}
