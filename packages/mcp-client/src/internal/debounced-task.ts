/**
 * Runs `task` once after `delayMs` of quiet following the last `schedule()`. A schedule that
 * fires while the task still runs makes it run once more afterwards (never concurrently), so
 * the last trigger is always followed by a complete run.
 */
export class DebouncedTask {
  readonly #task: () => Promise<void>;
  readonly #delayMs: number;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #running = false;
  #again = false;

  constructor(task: () => Promise<void>, delayMs: number) {
    this.#task = task;
    this.#delayMs = delayMs;
  }

  schedule(): void {
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      if (this.#running) {
        this.#again = true;
        return;
      }
      void this.#run();
    }, this.#delayMs);
  }

  cancel(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#again = false;
  }

  async #run(): Promise<void> {
    this.#running = true;
    try {
      do {
        this.#again = false;
        await this.#task();
      } while (this.#again);
    } finally {
      this.#running = false;
    }
  }
}
