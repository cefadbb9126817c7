/**
 * Admission for the inspector's API work: at most `size` requests are worked on at once, and a
 * request that finds every slot taken is refused at once (503 with Retry-After) rather than
 * queued, so a page that floods the server cannot pile work up behind it.
 */
export class Semaphore {
  readonly size: number;
  #held = 0;

  constructor(size: number) {
    this.size = size;
  }

  get held(): number {
    return this.#held;
  }

  /** A release function when a slot was free (call it exactly once), else undefined. */
  tryAcquire(): (() => void) | undefined {
    if (this.#held >= this.size) return undefined;
    this.#held += 1;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#held -= 1;
    };
  }
}
