import type { CircuitState } from "./circuit-breaker.js";
import type { Implementation } from "./mcp-types.js";

/** Where one managed server stands. */
export const ServerState = {
  /** First connection attempt in progress; no tools known yet. */
  Connecting: "connecting",
  /** Connected and initialised; live tools. */
  Ready: "ready",
  /** First connection attempt in progress; tools served from the cache meanwhile. */
  Deferred: "deferred",
  /** Lost or failed; waiting out the backoff or trying again. */
  Reconnecting: "reconnecting",
  /** The circuit breaker is open: no attempts until its cool-down ends; calls fail fast. */
  Failed: "failed",
  /** Disabled, unusable config, or the manager closed. */
  Closed: "closed",
} as const;

export type ServerState = (typeof ServerState)[keyof typeof ServerState];

/** A snapshot of one server, as carried by the manager's `state` event. */
export interface ServerStatus {
  name: string;
  state: ServerState;
  enabled: boolean;
  /** The error behind the last failed attempt or loss (kept after a recovery). */
  lastError: Error | undefined;
  /** The server's last stderr lines, when the transport reported them. */
  stderrTail: string | undefined;
  /** Failed attempts since the last success. */
  attempts: number;
  circuit: CircuitState;
  /** The breaker's current cool-down while the circuit is not closed (it grows in crash loops). */
  cooldownMs: number | undefined;
  /** Epoch milliseconds of the next attempt while waiting (reconnecting or failed). */
  retryAt: number | undefined;
  /** Tools currently exposed (before filters). */
  toolCount: number;
  /** True while the tools come from the cache rather than from the live server. */
  toolsFromCache: boolean;
  serverInfo: Implementation | undefined;
  protocolVersion: string | undefined;
}
