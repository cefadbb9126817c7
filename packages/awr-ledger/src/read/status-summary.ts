import { WORK_STATUSES } from "../sources/adapters/work-status.js";
import type { EntityView } from "./entity-row.js";
import type { Derivation, Projection } from "./projection.js";
import { priorityRank } from "./readiness.js";
import { CopyOnWrite, insertSorted, removeSorted } from "./sorted-list.js";

export interface OrganisationGap {
  gap:
    | "work_without_goal"
    | "goal_without_work"
    | "unknown_goal"
    | "unknown_dependency"
    | "unknown_milestone"
    | "unknown_status";
  key: string;
  message: string;
}

const stringAttribute = (item: EntityView, name: string): string | null =>
  (item.attributes[name] as string | null | undefined) ?? null;

interface Positioned {
  position: number;
}

/** A work item in progress or claimed by status, at its source position, with its priority rank. */
export interface CurrentEntry extends Positioned {
  work: EntityView;
  rank: number;
}

/** The claim-independent part of the project status, at one projection generation. */
export interface StatusSummary {
  /** Work items per status (every known status listed, plus `unknown`). */
  counts: Readonly<Record<string, number>>;
  /**
   * Items in progress or claimed by status, in current order (priority rank, then source
   * position): status shows the first few, so a read takes them without sorting every item.
   */
  current: readonly CurrentEntry[];
  /** Every organisation gap, in report order (see gaps()). */
  gaps: readonly OrganisationGap[];
  /** Open work items with gaps of their own, in source order. */
  itemGaps: readonly (Positioned & { gaps: readonly OrganisationGap[] })[];
  /** Dependencies on undefined keys: fixed while the projection's shape is. */
  dependencyGaps: readonly OrganisationGap[];
  /** How many work items name each goal. */
  goalWork: ReadonlyMap<string, number>;
}

/** In progress or claimed by status. */
export const isCurrent = (item: EntityView) =>
  item.status === "in_progress" || item.status === "claimed";
const isOpen = (item: EntityView) => item.status !== "completed" && item.status !== "cancelled";
const bySourceOrder = (e: Positioned, p: Positioned) => e.position - p.position;

/** Current order: priority rank, then source position. */
export const byCurrentOrder = (e: CurrentEntry, p: Pick<CurrentEntry, "rank" | "position">) =>
  e.rank - p.rank || e.position - p.position;

/** The item's entry in the current list (or among status's claimed extras). */
export const currentEntry = (work: EntityView, position: number): CurrentEntry => ({
  position,
  work,
  rank: priorityRank(work.attributes["priority"]),
});

/** The gaps an open work item has by itself: its goal, its milestone, its status. */
function gapsOfItem(projection: Projection, item: EntityView): OrganisationGap[] {
  const gaps: OrganisationGap[] = [];
  if (!isOpen(item)) return gaps;
  const goal = stringAttribute(item, "goal");
  if (goal === null) {
    gaps.push({ gap: "work_without_goal", key: item.key, message: `${item.key} names no goal` });
  } else if (projection.slot(goal)?.kind !== "goal") {
    gaps.push({
      gap: "unknown_goal",
      key: item.key,
      message: `${item.key} names goal ${goal}, which no source defines`,
    });
  }
  const milestone = stringAttribute(item, "milestone");
  if (milestone !== null && projection.slot(milestone)?.kind !== "milestone") {
    gaps.push({
      gap: "unknown_milestone",
      key: item.key,
      message: `${item.key} names milestone ${milestone}, which is not defined`,
    });
  }
  if (item.status === "unknown") {
    gaps.push({
      gap: "unknown_status",
      key: item.key,
      message: `${item.key} has status "${item.raw_status}", which AWR does not know`,
    });
  }
  return gaps;
}

/** Work items' dependencies on keys no entity has, by the item's source position. */
function dependencyGapsOf(projection: Projection): OrganisationGap[] {
  const gaps: OrganisationGap[] = [];
  for (const work of projection.ofKind("work")) {
    for (const dep of projection.dependencies.get(work.key) ?? []) {
      if (projection.slot(dep.target) !== undefined) continue;
      gaps.push({
        gap: "unknown_dependency",
        key: work.key,
        message: `${work.key} depends on ${dep.target}, which is not defined`,
      });
    }
  }
  return gaps;
}

/**
 * Report order: each open work item's own gaps in source order, then unknown dependencies,
 * then active goals that no work item names.
 */
function allGaps(
  projection: Projection,
  summary: Pick<StatusSummary, "itemGaps" | "dependencyGaps" | "goalWork">,
): OrganisationGap[] {
  const gaps = summary.itemGaps.flatMap((entry) => entry.gaps);
  gaps.push(...summary.dependencyGaps);
  for (const goal of projection.ofKind("goal")) {
    if (goal.status === "active" && (summary.goalWork.get(goal.key) ?? 0) === 0) {
      gaps.push({
        gap: "goal_without_work",
        key: goal.key,
        message: `active goal ${goal.key} has no work item`,
      });
    }
  }
  return gaps;
}

function countGoal(goalWork: Map<string, number>, goal: string | null, delta: number): void {
  if (goal !== null) goalWork.set(goal, (goalWork.get(goal) ?? 0) + delta);
}

/**
 * Counts by status, current work and organisation gaps, carried across in-place updates: an
 * updated work item moves between counts and lists; an updated goal can only change whether it
 * is reported as a goal without work.
 */
export const STATUS_SUMMARY: Derivation<StatusSummary> = {
  build(projection) {
    const counts: Record<string, number> = Object.fromEntries(
      [...WORK_STATUSES, "unknown"].map((s) => [s, 0]),
    );
    const current: StatusSummary["current"][number][] = [];
    const itemGaps: StatusSummary["itemGaps"][number][] = [];
    const goalWork = new Map<string, number>();
    for (const [position, work] of projection.ofKind("work").entries()) {
      counts[work.status] = (counts[work.status] ?? 0) + 1;
      if (isCurrent(work)) current.push(currentEntry(work, position));
      const gaps = gapsOfItem(projection, work);
      if (gaps.length > 0) itemGaps.push({ position, gaps });
      countGoal(goalWork, stringAttribute(work, "goal"), 1);
    }
    current.sort(byCurrentOrder);
    const parts = { itemGaps, dependencyGaps: dependencyGapsOf(projection), goalWork };
    return { counts, current, ...parts, gaps: allGaps(projection, parts) };
  },

  update(value, prev, next, changed) {
    let counts = value.counts;
    let goalWork = value.goalWork;
    const current = new CopyOnWrite(value.current);
    const itemGaps = new CopyOnWrite(value.itemGaps);
    let goalsChanged = false;
    for (const key of changed) {
      const before = prev.entity(key) as EntityView;
      const after = next.entity(key) as EntityView;
      if (after.kind === "goal") goalsChanged = true;
      if (after.kind !== "work") continue;
      const position = next.slot(key)?.index as number;
      if (counts === value.counts) counts = { ...counts };
      (counts as Record<string, number>)[before.status] = (counts[before.status] ?? 0) - 1;
      (counts as Record<string, number>)[after.status] = (counts[after.status] ?? 0) + 1;
      if (isCurrent(before)) {
        removeSorted(current.edit(), currentEntry(before, position), byCurrentOrder);
      }
      if (isCurrent(after)) {
        insertSorted(current.edit(), currentEntry(after, position), (e) => e, byCurrentOrder);
      }
      const beforeGaps = gapsOfItem(prev, before);
      const afterGaps = gapsOfItem(next, after);
      if (beforeGaps.length > 0 || afterGaps.length > 0) {
        removeSorted(itemGaps.edit(), { position }, bySourceOrder);
        if (afterGaps.length > 0) {
          insertSorted(itemGaps.edit(), { position, gaps: afterGaps }, (e) => e, bySourceOrder);
        }
      }
      const [goalBefore, goalAfter] = [
        stringAttribute(before, "goal"),
        stringAttribute(after, "goal"),
      ];
      if (goalBefore !== goalAfter) {
        if (goalWork === value.goalWork) goalWork = new Map(goalWork);
        countGoal(goalWork as Map<string, number>, goalBefore, -1);
        countGoal(goalWork as Map<string, number>, goalAfter, 1);
      }
    }
    const parts = { itemGaps: itemGaps.value, dependencyGaps: value.dependencyGaps, goalWork };
    const unchanged =
      itemGaps.value === value.itemGaps && goalWork === value.goalWork && !goalsChanged;
    return {
      counts,
      current: current.value,
      ...parts,
      gaps: unchanged ? value.gaps : allGaps(next, parts),
    };
  },
};
