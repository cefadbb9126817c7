import { LIMITS } from "../core/limits.js";
import type { ActiveClaim, EntityView } from "../read/entity-view.js";
import type { Projection } from "../read/projection.js";
import { isUnblocked } from "../read/readiness.js";
import type { OrganisationGap } from "../read/status-summary.js";
import type { Item } from "./status-header.js";
import type { StatusQueue } from "./status-queues.js";

/** A gap that keeps a work item from being worked on (the others are advice). */
export const STRUCTURAL = new Set<OrganisationGap["gap"]>([
  "unknown_status",
  "unknown_dependency",
  "unknown_goal",
  "unknown_milestone",
]);

/** One open work item placed in its queue: why (codes), its claims and the queue's own fields. */
export interface QueueEntry {
  work: EntityView;
  codes: string[];
  claims: ActiveClaim[];
  extra: Item;
}

/** What placing a work item reads besides the item itself. */
export interface QueueInputs {
  projection: Projection;
  gaps: OrganisationGap[];
  claims: ActiveClaim[];
  /** The item's pending user waits, oldest first. */
  waits: string[];
}

const blockedExtra = (gaps: OrganisationGap[]): Item => ({
  structural_codes: gaps.slice(0, LIMITS.statusQueueShown).map((g) => g.gap),
});

/**
 * The queue of one open work item: blocked when its status or a structural gap (an unknown
 * required dependency included) stops it, waiting on a pending user wait or an unfinished
 * required dependency, current when claimed or in progress, ready when its status is ready and
 * nothing blocks it, else blocked.
 */
export function chooseQueue(
  work: EntityView,
  inputs: QueueInputs,
): { queue: StatusQueue; entry: QueueEntry } {
  const { projection, gaps, claims, waits } = inputs;
  const codes = new Set<string>();
  let incomplete = 0;
  let missing = 0;
  for (const dep of projection.dependencies.get(work.key) ?? []) {
    const target = projection.entity(dep.target);
    if (target === undefined) {
      if (dep.required) missing++;
      codes.add("unknown_dependency");
    } else if (target.status !== "completed") {
      if (dep.required) incomplete++;
      codes.add(dep.required ? "required_dependency_incomplete" : "optional_dependency_incomplete");
    }
  }
  const structural = gaps.some((g) => STRUCTURAL.has(g.gap)) || missing > 0;
  const entry: QueueEntry = { work, codes: [], claims, extra: {} };
  const dependencyWait = incomplete > 0 && !structural;
  let queue: StatusQueue;
  if (work.status === "blocked" || work.status === "unknown" || structural) {
    queue = "blocked";
    entry.extra = blockedExtra(gaps);
  } else if (dependencyWait || waits.length > 0) {
    queue = "waiting";
    entry.extra = {
      wait_ids: waits.slice(0, LIMITS.statusQueueShown),
      wait_total: waits.length,
      execution_total: 0,
      executions: [],
      execution_basis: "this runtime records no executions; waits are the recorded user waits",
      next_action:
        waits.length > 0
          ? "Get the user's actual reply and record it (awr_session_reply) before continuing."
          : "Finish the incomplete required dependency first; recheck its source status.",
    };
  } else if (claims.length > 0 || work.status === "in_progress" || work.status === "claimed") {
    queue = "current";
    entry.extra = { ownership_required: true };
  } else if (work.status === "ready" && isUnblocked(projection, work.key)) {
    queue = "ready";
  } else {
    queue = "blocked";
    if (work.status !== "ready") codes.add("status_not_ready");
    entry.extra = blockedExtra(gaps);
  }
  entry.codes = [...codes].sort();
  return { queue, entry };
}
