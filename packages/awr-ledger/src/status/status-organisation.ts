import { type EntityView, stringOf } from "../read/entity-view.js";
import type { Projection } from "../read/projection.js";
import type { OrganisationGap, StatusSummary } from "../read/status-summary.js";
import { shortText } from "../read/work-brief.js";
import type { SourceIssue } from "../sources/adapters/index.js";
import { STRUCTURAL } from "./status-queue-choice.js";

/** The project's organisation gaps that concern `relevant` keys or the goals they belong to. */
export function relevantGaps(
  projection: Projection,
  gaps: readonly OrganisationGap[],
  relevant: ReadonlySet<string>,
): OrganisationGap[] {
  const relevantGoals = new Set<string>();
  for (const key of relevant) {
    const entity = projection.entity(key);
    const goal = entity === undefined ? null : stringOf(entity, "goal");
    if (goal !== null) relevantGoals.add(goal);
  }
  return gaps.filter((g) => relevant.has(g.key) || relevantGoals.has(g.key));
}

/**
 * The project's organisation state: an unreadable source first, then no work at all, all work
 * finished, a structural gap, else ready.
 */
export function organisationState(
  works: readonly EntityView[],
  summary: StatusSummary,
  sourceIssues: readonly SourceIssue[],
): string {
  const completed = works.filter((w) => w.status === "completed").length;
  const open = works.length - completed - (summary.counts["cancelled"] ?? 0);
  const structuralGaps = summary.gaps.filter((g) => STRUCTURAL.has(g.gap)).length;
  if (sourceIssues.length > 0) return "source_unreadable";
  if (works.length === 0) return "needs_organization";
  if (open === 0) return "completed";
  if (structuralGaps > 0) return "needs_organization";
  return "ready";
}

/** The action view's `organization`: its state and the first `shown` of the relevant gaps. */
export function organisationFields(
  state: string,
  gaps: readonly OrganisationGap[],
  shown: number,
  projectGapTotal: number,
) {
  return {
    state,
    business_execution_ready: state === "ready",
    gaps: gaps
      .slice(0, shown)
      .map((g) => ({ code: g.gap, target: g.key, detail: shortText(g.message) })),
    gap_sample_total: gaps.length,
    project_gap_total: projectGapTotal,
    current_gap_total: projectGapTotal,
  };
}

/**
 * The action view's `history`: completed work project-wide, in aggregate; with `sha`, how much
 * of it has evidence verified at that commit (`verified`) and how much has not.
 */
export function historyFields(
  works: readonly EntityView[],
  verified: ReadonlySet<string> | undefined,
  sha: string | undefined,
) {
  const completed = works.filter((w) => w.status === "completed");
  const verifiedCompleted =
    verified === undefined ? 0 : completed.filter((w) => verified.has(w.key)).length;
  return {
    basis: "project-wide; the source's completion status as written",
    source_completed: completed.length,
    verified_completed: verifiedCompleted,
    not_checked: sha === undefined ? completed.length : 0,
    check_blocked: 0,
    verification_failed: sha === undefined ? 0 : completed.length - verifiedCompleted,
    user_confirmed_completed: 0,
    business_checked_completed: 0,
    gap_total: 0,
    source_sha: sha ?? null,
    next_action:
      "Inspect a completion's recorded evidence and its source SHA; the current HEAD is no proof of past work",
    details: ["work show KEY", "status --view full --source-sha SHA", "status --view full"],
  };
}
