import { countTokens } from "../context/tokens.js";
import { LIMITS } from "../core/limits.js";
import { STATUS_QUEUES, type StatusQueue } from "./status-queues.js";

/** How many entries of each queue, and of the gaps, an action answer lists. */
export interface ShownCounts {
  queues: Record<StatusQueue, number>;
  gaps: number;
}

/**
 * What the dispatcher adds to every read answer (`ok` and the freshness fields, at their longest),
 * counted with the answer: the bound is on what the host receives.
 */
const READ_ENVELOPE = {
  ok: true,
  freshness_basis: "source_verified_readonly",
  source_refresh_performed: false,
  read_only: false,
};

/**
 * Builds the answer, and while it is over LIMITS.statusActionTokens o200k tokens the fullest
 * queue gives up its last entry (down to one), then the gaps, then the queues' last entries;
 * `shown` is lowered in place, so the answer's omissions count what was given up.
 */
export function withinTokenBound<T extends object>(shown: ShownCounts, build: () => T): T {
  let answer = build();
  while (countTokens(JSON.stringify({ ...answer, ...READ_ENVELOPE })) > LIMITS.statusActionTokens) {
    const fullest = [...STATUS_QUEUES].sort(
      (a, b) => shown.queues[b] - shown.queues[a],
    )[0] as StatusQueue;
    if (shown.queues[fullest] > 1) shown.queues[fullest]--;
    else if (shown.gaps > 0) shown.gaps--;
    else if (shown.queues[fullest] > 0) shown.queues[fullest]--;
    else break;
    answer = build();
  }
  return answer;
}
