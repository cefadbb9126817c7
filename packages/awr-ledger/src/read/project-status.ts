import type { Kysely } from "kysely";
import type { LedgerSchema } from "../storage/schema.js";
import { type ActiveClaim, type EntityView, stringOf } from "./entity-view.js";
import type { Projection } from "./projection.js";
import {
  type CurrentEntry,
  currentEntry,
  type OrganisationGap,
  STATUS_SUMMARY,
  type StatusSummary,
} from "./status-summary.js";
import { analyseReady } from "./work-ready.js";

export type { OrganisationGap } from "./status-summary.js";

export interface ProjectStatusResult {
  project_id: string;
  project_name: string;
  project_revision: number;
  /** Work items per status (every known status listed, plus `unknown`). */
  counts_by_status: Record<string, number>;
  total_work: number;
  entity_counts: Record<string, number>;
  current_work: {
    work: string;
    title: string;
    status: string;
    next_action: string | null;
    claimed_by: string | null;
  }[];
  ready_count: number;
  blocked_count: number;
  /** Status ready but waiting for a required dependency. */
  dependency_blocked_count: number;
  next_action: { work: string; title: string; action: string } | null;
  organisation_gaps: OrganisationGap[];
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

type CurrentWork = ProjectStatusResult["current_work"][number];

/** Items in progress or claimed by status, plus items an active claim holds, in source order. */
function currentWork(
  projection: Projection,
  summary: StatusSummary,
  claims: readonly ActiveClaim[],
): CurrentWork[] {
  if (claims.length === 0) return summary.current.map((c) => c.row);
  const claimedBy = new Map(claims.map((c) => [c.work, c.session]));
  let entries: readonly CurrentEntry[] = summary.current;
  const inCurrent = new Set(summary.current.map((c) => c.work.key));
  const extra = claims.flatMap((c) => {
    const slot = projection.slot(c.work);
    if (inCurrent.has(c.work) || slot?.kind !== "work") return [];
    return [currentEntry(slot.index, projection.ofKind("work")[slot.index] as EntityView)];
  });
  if (extra.length > 0) entries = [...entries, ...extra].sort((a, b) => a.position - b.position);
  return entries.map(({ row }) => {
    const session = claimedBy.get(row.work);
    return session === undefined ? row : { ...row, claimed_by: session };
  });
}

/**
 * The project overview. Counts, entity totals and organisation gaps are kept with the projection
 * and updated by in-place changes (status-summary.ts); the ledger notes are the projection's
 * (a reindex changes them, and the read clock with them); claims are read on every call.
 */
export async function projectStatus(
  db: Kysely<LedgerSchema>,
  project: { id: string; name: string },
  revision: number,
): Promise<ProjectStatusResult> {
  const analysis = await analyseReady(db, revision);
  const { projection } = analysis;
  const summary = projection.derive(STATUS_SUMMARY);
  const current = currentWork(projection, summary, analysis.claims);
  const withAction = current.find((c) => c.next_action !== null);
  const firstReady = analysis.firstReady(1)[0]?.work;
  const nextAction =
    withAction !== undefined
      ? { work: withAction.work, title: withAction.title, action: withAction.next_action as string }
      : firstReady !== undefined
        ? {
            work: firstReady.key,
            title: firstReady.title,
            action:
              stringOf(firstReady, "next_action") ?? `start ${firstReady.key}: ${firstReady.title}`,
          }
        : null;
  const entityCounts = [...projection.kindCounts()].sort(([a], [b]) => (a < b ? -1 : 1));
  return {
    project_id: project.id,
    project_name: project.name,
    project_revision: revision,
    counts_by_status: { ...summary.counts },
    total_work: projection.ofKind("work").length,
    entity_counts: Object.fromEntries(entityCounts),
    current_work: current,
    ready_count: analysis.readyCount,
    blocked_count: summary.counts["blocked"] ?? 0,
    dependency_blocked_count: analysis.dependencyBlockedCount,
    next_action: nextAction,
    organisation_gaps: [...summary.gaps],
    ledger_notes: ledgerNotes(projection),
  };
}
