import { backoffDelay } from "@awr/jsonrpc-core";
import type { ReconnectOptions } from "../http-transport-config.js";

/**
 * The delay before reconnect number `attempt` (1-based) of an event stream: the shared
 * exponential backoff with equal jitter, unless the server sent `retry:`, which replaces it as
 * the SSE specification asks.
 */
export function reconnectDelay(
  attempt: number,
  options: ReconnectOptions,
  serverRetryMs: number | undefined,
): number {
  if (serverRetryMs !== undefined) return serverRetryMs;
  return backoffDelay(attempt, { ...options, jitter: 0.5 });
}
