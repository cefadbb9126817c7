export interface BackoffOptions {
  /** Delay before the first retry, in milliseconds (250). */
  initialDelayMs?: number;
  /** Upper bound of any delay, in milliseconds (30 000). */
  maxDelayMs?: number;
  /** Growth per attempt (2). */
  factor?: number;
  /** Share of the delay that is random, 0..1 (0.5): spreads reconnect storms of many hosts. */
  jitter?: number;
}

/** The delay before retry number `attempt` (1-based): exponential, capped, jittered. */
export function backoffDelay(
  attempt: number,
  options: BackoffOptions = {},
  random: () => number = Math.random,
): number {
  const initial = options.initialDelayMs ?? 250;
  const max = options.maxDelayMs ?? 30_000;
  const factor = options.factor ?? 2;
  const jitter = Math.min(1, Math.max(0, options.jitter ?? 0.5));
  const base = Math.min(max, initial * factor ** Math.max(0, attempt - 1));
  return Math.round(base * (1 - jitter + jitter * random()));
}
