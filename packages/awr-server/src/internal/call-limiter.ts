/**
 * Counts tool calls in flight. `tryAcquire` fails fast past the limit (the server answers
 * "busy" instead of queueing), and `idle()` lets a shutdown wait for in-flight calls.
 */
export class CallLimiter {
  #active = 0;
  #waiters: Array<() => void> = [];

  constructor(readonly max: number) {}

  get active(): number {
    return this.#active;
  }

  tryAcquire(): boolean {
    if (this.#active >= this.max) return false;
    this.#active += 1;
    return true;
  }

  release(): void {
    this.#active -= 1;
    if (this.#active === 0) {
      const waiters = this.#waiters;
      this.#waiters = [];
      for (const wake of waiters) wake();
    }
  }

  /** Resolves once no call is in flight. */
  idle(): Promise<void> {
    if (this.#active === 0) return Promise.resolve();
    return new Promise((resolve) => this.#waiters.push(resolve));
  }
}
