import type { Kysely } from "kysely";
import type { SourceIssue } from "../sources/adapters/index.js";
import type { LedgerSchema } from "../storage/schema.js";
import { type ActiveClaim, type EntityView, stringOf } from "./entity-view.js";
import type { Projection } from "./projection.js";
import { missingSourceIssues, missingSourcesAction } from "./source-issues.js";
import {
  byCurrentOrder,
  type CurrentEntry,
  currentEntry,
  isCurrent,
  type OrganisationGap,
  STATUS_SUMMARY,
  type StatusSummary,
} from "./status-summary.js";
import { briefRevisions, type WorkBrief, workBrief } from "./work-brief.js";
import { analyseReady } from "./work-ready.js";

export type { OrganisationGap } from "./status-summary.js";

/** awr_project_status's answer, organisation gaps included (docs/compatibility/mcp-protocol.md). */
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
  /**
   * What the answer is missing because of its sources: reads answer only from fresh sources, so
   * these are the sources indexed as missing (a warning naming the file and the fix), whose work
   * is not counted above until the file is back.
   */
  source_issues: SourceIssue[];
  /** How many of `source_issues` are warnings. */
  source_warnings: number;
  /**
   * What ledger sources say about themselves that AWR does not compute or check, such as the
   * YAML ledger's `current:` block (its milestone, work item, next action, open loops),
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

const CURRENT_SHOWN = 5;

/** Status's current work: the first few in current order, and how many there are. */
interface CurrentWork {
  shown: EntityView[];
  total: number;
}

/**
 * Items in progress or claimed by status, plus items an active claim holds, in current order
 * (highest priority first, then source order). The summary keeps the first group sorted; the
 * claimed extras are few (one per active claim), so a read sorts only them and merges the first
 * CURRENT_SHOWN, whatever the number of items.
 */
function currentWork(
  projection: Projection,
  summary: StatusSummary,
  claims: readonly ActiveClaim[],
): CurrentWork {
  const extras: CurrentEntry[] = [];
  const seen = new Set<string>();
  for (const claim of claims) {
    const slot = projection.slot(claim.work);
    if (slot?.kind !== "work" || seen.has(claim.work)) continue;
    seen.add(claim.work);
    const work = projection.ofKind("work")[slot.index] as EntityView;
    // An item current by status is in the summary's list already.
    if (!isCurrent(work)) extras.push(currentEntry(work, slot.index));
  }
  extras.sort(byCurrentOrder);
  const shown: EntityView[] = [];
  let [i, j] = [0, 0];
  while (shown.length < CURRENT_SHOWN) {
    const [a, b] = [summary.current[i], extras[j]];
    if (a === undefined && b === undefined) break;
    if (b === undefined || (a !== undefined && byCurrentOrder(a, b) < 0)) {
      shown.push((a as CurrentEntry).work);
      i++;
    } else {
      shown.push(b.work);
      j++;
    }
  }
  return { shown, total: summary.current.length + extras.length };
}

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
  const [analysis, revisions, sourceIssues] = await Promise.all([
    analyseReady(db, revision, branch),
    briefRevisions(db, revision),
    missingSourceIssues(db),
  ]);
  const { projection } = analysis;
  const summary = projection.derive(STATUS_SUMMARY);
  const current = currentWork(projection, summary, analysis.claims);
  const focus = current.shown[0] ?? analysis.firstReady(1)[0]?.work;
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
    current: current.shown.map((w) => workBrief(w, revisions)),
    current_total: current.total,
    ready_count: analysis.readyCount,
    blocked_count: blocked,
    dependency_blocked_count: analysis.dependencyBlockedCount,
    next_action:
      next !== null && next.trim() !== ""
        ? next
        : focus !== undefined
          ? `Start ${focus.key}: ${focus.title}.`
          : sourceIssues.length > 0
            ? missingSourcesAction(sourceIssues)
            : blocked === 0
              ? "No open work remains: every work item is completed or cancelled."
              : "Nothing is ready: read the ready diagnostics and clear the prerequisite that blocks the work.",
    suggested_work: focus === undefined ? null : workBrief(focus, revisions),
    organisation_gaps: [...summary.gaps],
    source_issues: sourceIssues,
    source_warnings: sourceIssues.filter((i) => i.severity === "warning").length,
    ledger_notes: ledgerNotes(projection),
  };
}
