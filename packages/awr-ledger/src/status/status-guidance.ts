import type { QueueEntry } from "./status-queue-choice.js";
import type { StatusQueue } from "./status-queues.js";

/** The action view's guidance card: when it applies, on what basis, what next, when to recheck. */
export interface StatusGuidance {
  when: string;
  basis: string;
  next_action: string;
  recheck: string;
}

const GUIDANCE = {
  current: {
    when: "Current work can be continued",
    basis: "Source structure, dependencies and the claims in force",
    next_action:
      "Prepare the work's context; continue in the session that owns it, or resume that session explicitly",
    recheck: "A source, ownership, wait or outcome change",
  },
  ready: {
    when: "Work is ready to claim",
    basis: "Readiness and the current source structure",
    next_action: "Prepare the required context, then start a session that claims the work",
    recheck: "A claim conflict, or a source or dependency change",
  },
  waiting: {
    when: "Work is waiting",
    basis: "Pending user waits and unfinished required dependencies",
    next_action: "Resolve what the work waits on before continuing it",
    recheck: "The user's reply, or the prerequisite's completion",
  },
  none: {
    when: "No actionable work in this selection",
    basis: "Current diagnostics and source status; history is not verified again here",
    next_action: "Inspect the cited gap or blocked work and fix its cause in the source",
    recheck: "A source correction or an explicit verification",
  },
} as const satisfies Record<string, StatusGuidance>;

/** The card of the first non-empty queue of current, ready and waiting; else the "none" card. */
export function guidanceFor(queues: Record<StatusQueue, QueueEntry[]>): StatusGuidance {
  if (queues.current.length > 0) return GUIDANCE.current;
  if (queues.ready.length > 0) return GUIDANCE.ready;
  if (queues.waiting.length > 0) return GUIDANCE.waiting;
  return GUIDANCE.none;
}
