import { LIMITS } from "../core/limits.js";
import { type EntityView, stringOf } from "../read/entity-view.js";
import type { Derivation, Projection } from "../read/projection.js";
import { insertSorted, removeSorted } from "../read/sorted-list.js";
import { type WorkFact, workFact } from "./work-facts.js";

/** How many other active items of the milestone a packet names. */
export const SIBLING_LIMIT = LIMITS.milestoneSiblings;
/** How many completed items of the milestone a packet lists by name. */
export const DONE_LIMIT = LIMITS.milestoneDone;

/** A milestone's work items, each list in key order. */
interface MilestoneMembers {
  keys: readonly string[];
  /** The completed ones. */
  done: readonly string[];
}

const byKey = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
const milestoneOf = (work: EntityView) => stringOf(work, "milestone");

/**
 * Every milestone's members (read/projection.ts): rebuilt when an item moves to another
 * milestone; a transition to or from completed edits one `done` list in place.
 */
const MILESTONE_MEMBERS: Derivation<ReadonlyMap<string, MilestoneMembers>> = {
  build(projection) {
    const members = new Map<string, { keys: string[]; done: string[] }>();
    for (const work of projection.ofKind("work")) {
      const milestone = milestoneOf(work);
      if (milestone === null) continue;
      let entry = members.get(milestone);
      if (entry === undefined) {
        entry = { keys: [], done: [] };
        members.set(milestone, entry);
      }
      entry.keys.push(work.key);
      if (work.status === "completed") entry.done.push(work.key);
    }
    for (const entry of members.values()) {
      entry.keys.sort(byKey);
      entry.done.sort(byKey);
    }
    return members;
  },
  update(value, prev, next, changed) {
    let members = value;
    for (const key of changed) {
      const after = next.entity(key);
      if (after?.kind !== "work") continue;
      const before = prev.entity(key) as EntityView;
      const milestone = milestoneOf(after);
      if (milestoneOf(before) !== milestone) return this.build(next);
      const [was, is] = [before.status === "completed", after.status === "completed"];
      if (milestone === null || was === is) continue;
      if (members === value) members = new Map(value);
      const entry = members.get(milestone) as MilestoneMembers;
      const done = entry.done.slice();
      if (is) insertSorted(done, key, (k) => k, byKey);
      else removeSorted(done, key, byKey);
      (members as Map<string, MilestoneMembers>).set(milestone, { keys: entry.keys, done });
    }
    return members;
  },
};

export interface MilestoneNeighbours {
  /**
   * Other active items of the milestone, at most SIBLING_LIMIT, none of `covered`: those toward
   * the same goal first, each group in key order.
   */
  siblings: WorkFact[];
  /** How many items of the milestone are completed, and the first DONE_LIMIT of them by key. */
  done: { count: number; listed: { key: string; title: string }[] };
}

/**
 * The rest of `work`'s milestone as a packet shows it, from the projection. The members are
 * kept per projection (MILESTONE_MEMBERS); siblings are looked for in key order until enough
 * toward the same goal are found, and facts are made only for those shown, so a milestone of
 * ten thousand items costs a few of them.
 */
export function milestoneNeighbours(
  projection: Projection,
  work: WorkFact,
  covered: ReadonlySet<string>,
  visible: ((key: string) => boolean) | undefined,
  revisionOf: (key: string) => number,
): MilestoneNeighbours {
  const members =
    work.milestone === null ? undefined : projection.derive(MILESTONE_MEMBERS).get(work.milestone);
  if (members === undefined) return { siblings: [], done: { count: 0, listed: [] } };
  const shown = (key: string) => key !== work.external_key && (visible?.(key) ?? true);
  const sameGoal: EntityView[] = [];
  const otherGoal: EntityView[] = [];
  for (const key of members.keys) {
    if (sameGoal.length === SIBLING_LIMIT) break;
    if (!shown(key) || covered.has(key)) continue;
    const item = projection.entity(key) as EntityView;
    if (item.status === "completed" || item.status === "cancelled") continue;
    const group = stringOf(item, "goal") === work.goal ? sameGoal : otherGoal;
    if (group.length < SIBLING_LIMIT) group.push(item);
  }
  const siblings = [...sameGoal, ...otherGoal]
    .slice(0, SIBLING_LIMIT)
    .map((item) => workFact(item, revisionOf(item.key)));
  // The item itself is among the done only when it is completed.
  const done =
    visible === undefined && work.status !== "completed"
      ? members.done
      : members.done.filter(shown);
  const listed = done.slice(0, DONE_LIMIT).map((key) => ({
    key,
    title: (projection.entity(key) as EntityView).title,
  }));
  return { siblings, done: { count: done.length, listed } };
}
