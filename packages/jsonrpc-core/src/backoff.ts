/** Exponential backoff with jitter, shared by every retry loop of the MCP client stack. */
export interface BackoffOptions {
  /** Delay before the first retry, in milliseconds. */
  initialDelayMs: number;
  /** Upper bound of any computed delay, in milliseconds. */
  maxDelayMs: number;
  /** Growth of the delay per consecutive failure. */
  factor: number;
  /**
   * Share of the delay that is random, 0..1: 0.5 is "equal jitter" (half fixed, half random), so
   * many clients dropped at once do not retry in lockstep.
   */
  jitter: number;
}

/**
 * The delay before retry number `attempt` (1-based: the first retry is attempt 1):
 * `min(maxDelayMs, initialDelayMs * factor^(attempt-1))`, of which the `jitter` share is random.
 */
export function backoffDelay(
  attempt: number,
  options: BackoffOptions,
  random: () => number = Math.random,
): number {
  const jitter = Math.min(1, Math.max(0, options.jitter));
  const base = Math.min(
    options.maxDelayMs,
    options.initialDelayMs * options.factor ** Math.max(0, attempt - 1),
  );
  return Math.round(base * (1 - jitter + jitter * random()));
}

/** Waits `ms` milliseconds; rejects with `signal.reason` as soon as the signal aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.reject(signal.reason);
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
