import type { ActiveClaim, EntityView } from "../read/entity-view.js";
import type { Projection } from "../read/projection.js";
import type { OrganisationGap } from "../read/status-summary.js";
import type { BriefRevisions } from "../read/work-brief.js";
import { type Item, statusBrief } from "./status-header.js";
import { chooseQueue, type QueueEntry } from "./status-queue-choice.js";
import type { StatusQueue } from "./status-queues.js";

/** The selection sorted into queues, with its counts by status and the keys its gaps concern. */
export interface BuiltQueues {
  counts: Record<string, number>;
  queues: Record<StatusQueue, QueueEntry[]>;
  /** The scope's keys, the open selected items and the dependencies they name. */
  relevant: Set<string>;
}

function groupBy<T>(values: readonly T[], keyOf: (value: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const value of values) {
    const key = keyOf(value);
    const list = groups.get(key) ?? [];
    list.push(value);
    groups.set(key, list);
  }
  return groups;
}

/**
 * Counts the selected work by status and places each open item (neither completed nor
 * cancelled) in its queue, in selection order.
 */
export function buildQueues(
  projection: Projection,
  selected: readonly EntityView[],
  scopeWork: readonly string[],
  gaps: readonly OrganisationGap[],
  claims: readonly ActiveClaim[],
  waits: Map<string, string[]>,
): BuiltQueues {
  const gapsByKey = groupBy(gaps, (gap) => gap.key);
  const claimsByWork = groupBy(claims, (claim) => claim.work);
  const counts: Record<string, number> = {};
  const queues: Record<StatusQueue, QueueEntry[]> = {
    current: [],
    ready: [],
    waiting: [],
    blocked: [],
  };
  const relevant = new Set<string>(scopeWork);
  for (const work of selected) {
    counts[work.status] = (counts[work.status] ?? 0) + 1;
    if (work.status === "completed" || work.status === "cancelled") continue;
    relevant.add(work.key);
    for (const dep of projection.dependencies.get(work.key) ?? []) relevant.add(dep.target);
    const { queue, entry } = chooseQueue(work, {
      projection,
      gaps: gapsByKey.get(work.key) ?? [],
      claims: claimsByWork.get(work.key) ?? [],
      waits: waits.get(work.key) ?? [],
    });
    queues[queue].push(entry);
  }
  return { counts, queues, relevant };
}

/** A queue entry as the action view lists it. */
export function queueItem(entry: QueueEntry, revisions: BriefRevisions): Item {
  return {
    ...statusBrief(entry.work, revisions),
    codes: entry.codes,
    claims: entry.claims.map((c) => ({ session: c.session_id, agent: c.agent_id })),
    ...entry.extra,
  };
}
