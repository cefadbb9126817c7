/** The longest delay `setTimeout` honours (about 24.8 days); longer ones would fire at once. */
const MAX_DELAY_MS = 2_147_483_647;

/**
 * One timer for many deadlines. A per-request `setTimeout` and `clearTimeout` cost a timer-list
 * insert and removal on every call; here the timer is armed for the earliest deadline only and,
 * when it fires, `expire(now)` settles whatever is due and returns the next deadline (or
 * Infinity). A request that ends early costs nothing: the timer finds it gone when it fires.
 * While nothing waits (`idle()`), the timer is unreferenced so it never keeps the process alive.
 */
export class DeadlineTimer {
  readonly #expire: (now: number) => number;
  #timer: ReturnType<typeof setTimeout> | undefined;
  /** When the armed timer fires; Infinity when none is armed. */
  #firesAt = Number.POSITIVE_INFINITY;
  #referenced = false;

  /** `expire(now)` settles every deadline at or before `now` and returns the earliest left. */
  constructor(expire: (now: number) => number) {
    this.#expire = expire;
  }

  /** Makes sure the timer fires by `deadline` (a `Date.now()` time) and keeps the process alive. */
  schedule(deadline: number): void {
    const wasReferenced = this.#referenced;
    this.#referenced = true;
    if (deadline < this.#firesAt) this.#arm(deadline);
    else if (!wasReferenced) this.#timer?.ref();
  }

  /** Nothing waits any more: the armed timer may stay, but must not hold the process open. */
  idle(): void {
    if (!this.#referenced) return;
    this.#referenced = false;
    this.#timer?.unref();
  }

  stop(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#firesAt = Number.POSITIVE_INFINITY;
    this.#referenced = false;
  }

  #arm(deadline: number): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    const delay = Math.min(MAX_DELAY_MS, Math.max(0, deadline - Date.now()));
    this.#firesAt = deadline;
    this.#timer = setTimeout(() => this.#fire(), delay);
    if (!this.#referenced) this.#timer.unref();
  }

  #fire(): void {
    this.#timer = undefined;
    this.#firesAt = Number.POSITIVE_INFINITY;
    const next = this.#expire(Date.now());
    if (next !== Number.POSITIVE_INFINITY) this.#arm(next);
  }
}
