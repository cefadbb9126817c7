import type { ReconnectOptions } from "../http-transport-config.js";

export const DEFAULT_RECONNECT: ReconnectOptions = {
  initialDelayMs: 1_000,
  maxDelayMs: 30_000,
  factor: 2,
  maxRetries: 5,
};

/**
 * The delay before retry number `attempt` (0-based): exponential, capped, with "equal jitter"
 * (half fixed, half random) so many clients dropped at once do not reconnect in lockstep.
 * A `retry` sent by the server replaces the computed value, as the SSE specification asks.
 */
export function reconnectDelay(
  attempt: number,
  options: ReconnectOptions,
  serverRetryMs: number | undefined,
  random: () => number = Math.random,
): number {
  if (serverRetryMs !== undefined) return serverRetryMs;
  const base = Math.min(options.maxDelayMs, options.initialDelayMs * options.factor ** attempt);
  return Math.round(base / 2 + (random() * base) / 2);
}
