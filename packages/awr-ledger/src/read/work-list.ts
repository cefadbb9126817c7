import type { Kysely } from "kysely";
import type { LedgerSchema } from "../storage/schema.js";
import { entitiesOfKind, stringOf } from "./entity-view.js";

export interface WorkListFilters {
  status?: string | undefined;
  milestone?: string | undefined;
  goal?: string | undefined;
}

export interface WorkListItem {
  work: string;
  title: string;
  status: string;
  goal: string | null;
  milestone: string | null;
  next_action: string | null;
}

/** Every work item in source order, narrowed by status, milestone and goal (the CLI's list). */
export async function workList(
  db: Kysely<LedgerSchema>,
  filters: WorkListFilters,
  revision: number,
): Promise<WorkListItem[]> {
  const work = await entitiesOfKind(db, revision, "work");
  return work
    .filter((w) => filters.status === undefined || w.status === filters.status)
    .filter(
      (w) => filters.milestone === undefined || stringOf(w, "milestone") === filters.milestone,
    )
    .filter((w) => filters.goal === undefined || stringOf(w, "goal") === filters.goal)
    .map((w) => ({
      work: w.key,
      title: w.title,
      status: w.status,
      goal: stringOf(w, "goal"),
      milestone: stringOf(w, "milestone"),
      next_action: stringOf(w, "next_action"),
    }));
}
