import type { EntityView } from "./entity-row.js";
import type { Derivation, Projection } from "./projection.js";
import { CopyOnWrite, insertSorted, removeSorted } from "./sorted-list.js";
import type { ReadyDiagnostic } from "./work-brief.js";

/** Status ready and every required dependency completed. */
export interface UnblockedEntry {
  work: EntityView;
  /** Unmet optional dependencies. */
  diagnostics: readonly ReadyDiagnostic[];
  rank: number;
  /** Index in the source-ordered work list. */
  position: number;
}

/** Status ready, but a required dependency is not completed. */
export interface BlockedEntry {
  work: EntityView;
  unmet: readonly string[];
  position: number;
}

/** The claim-independent part of readiness, at one projection generation. */
export interface Readiness {
  /** In ready order: priority rank, then source position. */
  unblocked: readonly UnblockedEntry[];
  /** In source order. */
  dependencyBlocked: readonly BlockedEntry[];
}

type Assessment =
  | { state: "other" }
  | { state: "unblocked"; entry: UnblockedEntry }
  | { state: "blocked"; entry: BlockedEntry };

const PRIORITY_NAMES: Record<string, number> = {
  critical: 0,
  urgent: 0,
  p0: 0,
  high: 1,
  p1: 1,
  medium: 2,
  normal: 2,
  p2: 2,
  low: 3,
  p3: 3,
};

/** Sort rank of a priority value: numbers as given, common names mapped, anything else last. */
export function priorityRank(priority: unknown): number {
  if (typeof priority === "number") return Number.isNaN(priority) ? 100 : priority;
  if (typeof priority === "string") return PRIORITY_NAMES[priority.toLowerCase()] ?? 50;
  return 100;
}

/** Where one work item stands; its dependencies' states come from the same projection. */
function assess(projection: Projection, key: string): Assessment {
  const slot = projection.slot(key);
  if (slot?.kind !== "work") return { state: "other" };
  const work = projection.ofKind("work")[slot.index] as EntityView;
  if (work.status !== "ready") return { state: "other" };
  const unmet: string[] = [];
  const diagnostics: ReadyDiagnostic[] = [];
  for (const dep of projection.dependencies.get(key) ?? []) {
    const status = projection.entity(dep.target)?.status ?? "missing";
    if (status === "completed") continue;
    if (dep.required) unmet.push(`${dep.target} (${status})`);
    else {
      diagnostics.push({
        code: "optional_dependency_incomplete",
        work_item_key: dep.target,
        detail: `optional dependency ${dep.target} is ${status}`,
      });
    }
  }
  const position = slot.index;
  if (unmet.length > 0) return { state: "blocked", entry: { work, unmet, position } };
  const rank = priorityRank(work.attributes["priority"]);
  return { state: "unblocked", entry: { work, diagnostics, rank, position } };
}

/** Whether the work item is ready but for claims (status ready, required dependencies met). */
export function isUnblocked(projection: Projection, key: string): boolean {
  return assess(projection, key).state === "unblocked";
}

const byReadyOrder = (e: UnblockedEntry, p: { rank: number; position: number }) =>
  e.rank - p.rank || e.position - p.position;
const bySourceOrder = (e: { position: number }, p: { position: number }) => e.position - p.position;

/**
 * Ready analysis, carried across in-place updates: an updated entity changes its own standing
 * and that of the work items that depend on it, and nothing else.
 */
export const READINESS: Derivation<Readiness> = {
  build(projection) {
    const unblocked: UnblockedEntry[] = [];
    const dependencyBlocked: BlockedEntry[] = [];
    for (const work of projection.ofKind("work")) {
      const a = assess(projection, work.key);
      if (a.state === "unblocked") unblocked.push(a.entry);
      else if (a.state === "blocked") dependencyBlocked.push(a.entry);
    }
    unblocked.sort(byReadyOrder);
    return { unblocked, dependencyBlocked };
  },

  update(value, prev, next, changed) {
    const affected = new Set<string>();
    for (const key of changed) {
      affected.add(key);
      for (const dependent of next.dependents.get(key) ?? []) affected.add(dependent.work);
    }
    const unblocked = new CopyOnWrite(value.unblocked);
    const blocked = new CopyOnWrite(value.dependencyBlocked);
    for (const key of affected) {
      const before = assess(prev, key);
      const after = assess(next, key);
      if (before.state === "unblocked") removeSorted(unblocked.edit(), before.entry, byReadyOrder);
      if (before.state === "blocked") removeSorted(blocked.edit(), before.entry, bySourceOrder);
      if (after.state === "unblocked") {
        insertSorted(unblocked.edit(), after.entry, (e) => e, byReadyOrder);
      }
      if (after.state === "blocked") {
        insertSorted(blocked.edit(), after.entry, (e) => e, bySourceOrder);
      }
    }
    return { unblocked: unblocked.value, dependencyBlocked: blocked.value };
  },
};
