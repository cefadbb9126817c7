import { LIMITS } from "../core/limits.js";
import { LedgerError } from "../errors.js";
import type { EntityView } from "../read/entity-view.js";
import { stringOf, workNotFound } from "../read/entity-view.js";
import type { Projection } from "../read/projection.js";
import { priorityRank } from "../read/readiness.js";

/** The selection arguments the action and summary views share. */
export interface ActionStatusInput {
  work?: string[] | undefined;
  goal?: string | null | undefined;
  milestone?: string | null | undefined;
  source_sha?: string | undefined;
}

/** A status scope: work keys, a goal, a milestone; they intersect. */
export interface StatusScope {
  work: string[];
  goal: string | null;
  milestone: string | null;
}

export const scopeOf = (input: ActionStatusInput): StatusScope => ({
  work: input.work ?? [],
  goal: input.goal ?? null,
  milestone: input.milestone ?? null,
});

/**
 * The scope's work items, highest priority first, then in source order. A scope naming more
 * than LIMITS.statusScopeWork keys is InvalidInput; an unknown work key, goal or milestone is
 * NotFound.
 */
export function selectWork(projection: Projection, scope: StatusScope): EntityView[] {
  if (scope.work.length > LIMITS.statusScopeWork) {
    throw new LedgerError(
      "InvalidInput",
      `work names ${scope.work.length} keys; a status scope takes at most ${LIMITS.statusScopeWork}`,
      { field: "work" },
    );
  }
  for (const key of scope.work) {
    if (projection.slot(key)?.kind !== "work") throw workNotFound(key);
  }
  if (scope.goal !== null && projection.slot(scope.goal)?.kind !== "goal") {
    throw new LedgerError("NotFound", `goal ${scope.goal} is not in the ledger`, {
      goal: scope.goal,
    });
  }
  if (scope.milestone !== null && projection.slot(scope.milestone)?.kind !== "milestone") {
    throw new LedgerError("NotFound", `milestone ${scope.milestone} is not in the ledger`, {
      milestone: scope.milestone,
    });
  }
  const wanted = new Set(scope.work);
  return projection
    .ofKind("work")
    .map((work, position) => ({ work, position, rank: priorityRank(work.attributes["priority"]) }))
    .filter(
      ({ work }) =>
        (wanted.size === 0 || wanted.has(work.key)) &&
        (scope.goal === null || stringOf(work, "goal") === scope.goal) &&
        (scope.milestone === null || stringOf(work, "milestone") === scope.milestone),
    )
    .sort((a, b) => a.rank - b.rank || a.position - b.position)
    .map((s) => s.work);
}
