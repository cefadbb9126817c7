/**
 * Promises that resolve once a predicate holds, re-checked whenever the owner calls `check()`
 * (after each state change): waiting on a condition instead of polling or sleeping.
 */
export class Condition {
  readonly #waiters = new Set<() => boolean>();

  /** Re-evaluates every waiter; the satisfied ones resolve. */
  check(): void {
    for (const waiter of [...this.#waiters]) waiter();
  }

  /** Resolves once `ready()` is true; rejects with `signal.reason` when it aborts first. */
  wait(ready: () => boolean, signal: AbortSignal): Promise<void> {
    if (ready()) return Promise.resolve();
    if (signal.aborted) return Promise.reject(signal.reason);
    return new Promise<void>((resolve, reject) => {
      const waiter = () => {
        if (!ready()) return false;
        done();
        resolve();
        return true;
      };
      const onAbort = () => {
        done();
        reject(signal.reason);
      };
      const done = () => {
        this.#waiters.delete(waiter);
        signal.removeEventListener("abort", onAbort);
      };
      this.#waiters.add(waiter);
      signal.addEventListener("abort", onAbort, { once: true });
    });
  }
}
