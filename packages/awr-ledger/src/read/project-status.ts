import type { Kysely } from "kysely";
import type { LedgerSchema } from "../storage/schema.js";
import { type ActiveClaim, type EntityView, stringOf } from "./entity-view.js";
import type { Projection } from "./projection.js";
import { priorityRank } from "./readiness.js";
import { type OrganisationGap, STATUS_SUMMARY, type StatusSummary } from "./status-summary.js";
import { briefRevisions, type WorkBrief, workBrief } from "./work-brief.js";
import { analyseReady } from "./work-ready.js";

export type { OrganisationGap } from "./status-summary.js";

/** awr_project_status's answer, in the original's field names plus the organisation gaps. */
export interface ProjectStatusResult {
  project_id: string;
  /** The project's name. */
  project: string;
  project_revision: number;
  /** The branch whose claims were counted (null = main). */
  branch_id: string | null;
  /** Work items per status, for the statuses that occur. */
  counts: Record<string, number>;
  total: number;
  entity_counts: Record<string, number>;
  /** Work in progress or claimed, highest priority first (at most five). */
  current: WorkBrief[];
  current_total: number;
  ready_count: number;
  /** Open work (neither completed nor cancelled) that is not ready. */
  blocked_count: number;
  /** Status ready but waiting for a required dependency. */
  dependency_blocked_count: number;
  /** What to do next: the focus item's next action, or what to look at when there is none. */
  next_action: string;
  /** The focus item: the first current item, else the first ready one. */
  suggested_work: WorkBrief | null;
  organisation_gaps: OrganisationGap[];
  /** Reads answer only from fresh sources, so there are never issues to report here. */
  source_issues: never[];
  source_warnings: number;
  /**
   * What ledger sources say about themselves that AWR does not compute or check, such as the
   * original AWR ledger's `current:` block (its milestone, work item, next action, open loops),
   * shown as written and labelled as the ledger's own note. Empty when no source has one.
   */
  ledger_notes: LedgerNote[];
}

export interface LedgerNote {
  /** The source the note is written in. */
  source: string;
  /** Always "ledger_note": the source's own words, not state AWR computed. */
  origin: "ledger_note";
  label: string;
  current: unknown;
}

/** The sources' notes as status reports them: labelled as the ledger's own words. */
function ledgerNotes(projection: Projection): LedgerNote[] {
  return projection.notes.map(({ source, note }) => ({
    source,
    origin: "ledger_note",
    label: `the current: block written in ${source}, shown as written (AWR does not compute or check it)`,
    current: (note as { current?: unknown } | null)?.current ?? null,
  }));
}

/**
 * Items in progress or claimed by status, plus items an active claim holds: highest priority
 * first, then in source order.
 */
function currentWork(
  projection: Projection,
  summary: StatusSummary,
  claims: readonly ActiveClaim[],
): EntityView[] {
  const entries = summary.current.map(({ position, work }) => ({ position, work }));
  const inCurrent = new Set(entries.map((e) => e.work.key));
  for (const claim of claims) {
    const slot = projection.slot(claim.work);
    if (inCurrent.has(claim.work) || slot?.kind !== "work") continue;
    inCurrent.add(claim.work);
    entries.push({
      position: slot.index,
      work: projection.ofKind("work")[slot.index] as EntityView,
    });
  }
  return entries
    .sort(
      (a, b) =>
        priorityRank(a.work.attributes["priority"]) - priorityRank(b.work.attributes["priority"]) ||
        a.position - b.position,
    )
    .map((e) => e.work);
}

const CURRENT_SHOWN = 5;

/**
 * The project overview. Counts, current work and organisation gaps are kept with the projection
 * and updated by in-place changes (status-summary.ts); the ledger notes are the projection's
 * (a reindex changes them, and the read clock with them); claims are read on every call.
 */
export async function projectStatus(
  db: Kysely<LedgerSchema>,
  project: { id: string; name: string },
  revision: number,
  branch: string | null,
): Promise<ProjectStatusResult> {
  const [analysis, revisions] = await Promise.all([
    analyseReady(db, revision, branch),
    briefRevisions(db, revision),
  ]);
  const { projection } = analysis;
  const summary = projection.derive(STATUS_SUMMARY);
  const current = currentWork(projection, summary, analysis.claims);
  const focus = current[0] ?? analysis.firstReady(1)[0]?.work;
  const next = focus === undefined ? null : stringOf(focus, "next_action");
  const blocked = analysis.notReadyCount;
  // Statuses that occur, in code-point order (a collator would cost milliseconds on a cold start).
  const counts = Object.entries(summary.counts)
    .filter(([, n]) => n > 0)
    .sort(([a], [b]) => (a < b ? -1 : 1));
  const entityCounts = [...projection.kindCounts()].sort(([a], [b]) => (a < b ? -1 : 1));
  return {
    project_id: project.id,
    project: project.name,
    project_revision: revision,
    branch_id: branch,
    counts: Object.fromEntries(counts),
    total: projection.ofKind("work").length,
    entity_counts: Object.fromEntries(entityCounts),
    current: current.slice(0, CURRENT_SHOWN).map((w) => workBrief(w, revisions)),
    current_total: current.length,
    ready_count: analysis.readyCount,
    blocked_count: blocked,
    dependency_blocked_count: analysis.dependencyBlockedCount,
    next_action:
      next !== null && next.trim() !== ""
        ? next
        : focus !== undefined
          ? `Start ${focus.key}: ${focus.title}.`
          : blocked === 0
            ? "No open work remains: every work item is completed or cancelled."
            : "Nothing is ready: read the ready diagnostics and clear the prerequisite that blocks the work.",
    suggested_work: focus === undefined ? null : workBrief(focus, revisions),
    organisation_gaps: [...summary.gaps],
    source_issues: [],
    source_warnings: 0,
    ledger_notes: ledgerNotes(projection),
  };
}
