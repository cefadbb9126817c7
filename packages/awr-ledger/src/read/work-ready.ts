import type { Kysely } from "kysely";
import { LIMITS } from "../core/limits.js";
import type { SourceIssue } from "../sources/adapters/index.js";
import type { LedgerSchema } from "../storage/schema.js";
import {
  type ActiveClaim,
  activeClaims,
  type EntityView,
  type SourceRef,
  workNotFound,
} from "./entity-view.js";
import type { Projection } from "./projection.js";
import { projectionAt } from "./projection-cache.js";
import { isUnblocked, READINESS, type UnblockedEntry } from "./readiness.js";
import { missingSourceIssues } from "./source-issues.js";
import { STATUS_SUMMARY } from "./status-summary.js";
import { briefRevisions, type ReadyBrief, type ReadyDiagnostic, readyBrief } from "./work-brief.js";

export interface WorkReadyInput {
  limit?: number | undefined;
}

/**
 * awr_work_ready's answer (docs/compatibility/mcp-protocol.md): the ready items (at most `limit`),
 * how many there are, and a sample of the open work that is not selectable with counts of why.
 */
export interface WorkReadyResult {
  project_revision: number;
  /** The branch whose claims were counted (null = main). */
  branch_id: string | null;
  ready: ReadyBrief[];
  /** Ready items in total, before `limit`. */
  ready_total: number;
  truncated: boolean;
  /** Open work (neither completed nor cancelled) that is not ready. */
  blocked_total: number;
  /** How many of those items have each diagnostic code. */
  diagnostic_counts: Record<string, number>;
  /** The first three of them, in source order. */
  blocked_sample: ReadyBrief[];
  /**
   * Sources indexed as missing (a warning naming the file and the fix): the work they hold is
   * neither ready nor counted until the file is back (as in awr_project_status).
   */
  source_issues: SourceIssue[];
  /** How many of `source_issues` are warnings. */
  source_warnings: number;
}

/** Readiness with the claims in force applied: shared between callers, read-only. */
export interface ReadyAnalysis {
  projection: Projection;
  /** Ready items in total: unblocked and not claimed. */
  readyCount: number;
  /** Status ready, but a required dependency is not completed. */
  dependencyBlockedCount: number;
  /** Open work (neither completed nor cancelled) that is not ready. */
  notReadyCount: number;
  claims: ActiveClaim[];
  /** The first `limit` ready items, in ready order. */
  firstReady(limit: number): UnblockedEntry[];
}

const TERMINAL = new Set(["completed", "cancelled"]);

/**
 * Ready work: status `ready`, no active claim, every required dependency completed. An unmet
 * optional dependency does not block; it becomes a diagnostic. Sorted by priority, then by source
 * order. The dependency analysis is kept with the projection and updated by in-place changes
 * (readiness.ts); claims (which expire by the clock) are read on every call.
 */
export async function analyseReady(
  db: Kysely<LedgerSchema>,
  revision: number,
  branch: string | null,
): Promise<ReadyAnalysis> {
  const [projection, claims] = await Promise.all([
    projectionAt(db, revision),
    activeClaims(db, branch),
  ]);
  const { unblocked, dependencyBlocked } = projection.derive(READINESS);
  const { counts } = projection.derive(STATUS_SUMMARY);
  const claimed = new Set(claims.map((c) => c.work));
  let claimedReady = 0;
  for (const work of claimed) if (isUnblocked(projection, work)) claimedReady++;
  const readyCount = unblocked.length - claimedReady;
  const open =
    projection.ofKind("work").length - (counts["completed"] ?? 0) - (counts["cancelled"] ?? 0);
  return {
    projection,
    readyCount,
    dependencyBlockedCount: dependencyBlocked.length,
    notReadyCount: open - readyCount,
    claims,
    firstReady(limit) {
      const out: UnblockedEntry[] = [];
      for (const entry of unblocked) {
        if (out.length >= limit) break;
        if (!claimed.has(entry.work.key)) out.push(entry);
      }
      return out;
    },
  };
}

/** Why an open item that is not ready cannot be picked now (empty for a ready item). */
function notReadyDiagnostics(
  analysis: ReadyAnalysis,
  item: EntityView,
  claimedBy: ReadonlyMap<string, ActiveClaim>,
): ReadyDiagnostic[] {
  const key = item.key;
  const claim = claimedBy.get(key);
  if (claim === undefined && isUnblocked(analysis.projection, key)) return [];
  const diagnostics: ReadyDiagnostic[] = [];
  if (item.status !== "ready") {
    diagnostics.push({
      code: "status_not_ready",
      work_item_key: key,
      detail: `status is ${item.status}`,
    });
  } else {
    for (const dep of analysis.projection.dependencies.get(key) ?? []) {
      const status = analysis.projection.entity(dep.target)?.status ?? "missing";
      if (!dep.required || status === "completed") continue;
      const detail = `required dependency ${dep.target} (${status}) is not completed`;
      diagnostics.push({ code: "required_dependency_incomplete", work_item_key: key, detail });
    }
  }
  if (claim !== undefined) {
    const detail = `claimed by session ${claim.session_id} (${claim.agent_id})`;
    diagnostics.push({ code: "active_claim", work_item_key: key, detail });
  }
  return diagnostics;
}

const BLOCKED_SAMPLE = 3;

export async function workReady(
  db: Kysely<LedgerSchema>,
  input: WorkReadyInput,
  revision: number,
  branch: string | null,
): Promise<WorkReadyResult> {
  const limit = input.limit ?? LIMITS.limit.default;
  const [analysis, revisions, sourceIssues] = await Promise.all([
    analyseReady(db, revision, branch),
    briefRevisions(db, revision),
    missingSourceIssues(db),
  ]);
  const { projection, claims } = analysis;
  const { counts } = projection.derive(STATUS_SUMMARY);
  const claimedBy = new Map(claims.map((c) => [c.work, c]));
  const brief = (work: EntityView, ready: boolean, diagnostics: readonly ReadyDiagnostic[]) =>
    readyBrief(work, revisions, ready, diagnostics, claims);

  // Counts by code without visiting every item: an open item whose status is not ready has
  // status_not_ready; a status-ready item with an unmet required dependency has
  // required_dependency_incomplete; every claimed open item has active_claim.
  const diagnosticCounts: Record<string, number> = {};
  const add = (code: ReadyDiagnostic["code"], n: number) => {
    if (n > 0) diagnosticCounts[code] = n;
  };
  const notReadyStatus = analysis.notReadyCount + analysis.readyCount - (counts["ready"] ?? 0);
  add(
    "active_claim",
    [...claimedBy.keys()].filter((k) => {
      const status = projection.entity(k)?.status;
      return projection.slot(k)?.kind === "work" && status !== undefined && !TERMINAL.has(status);
    }).length,
  );
  add("required_dependency_incomplete", analysis.dependencyBlockedCount);
  add("status_not_ready", notReadyStatus);

  // The sample: the first open items in source order that are not ready.
  const sample: ReadyBrief[] = [];
  for (const item of projection.ofKind("work")) {
    if (sample.length >= BLOCKED_SAMPLE) break;
    if (TERMINAL.has(item.status)) continue;
    const diagnostics = notReadyDiagnostics(analysis, item, claimedBy);
    if (diagnostics.length > 0) sample.push(brief(item, false, diagnostics));
  }
  return {
    project_revision: revision,
    branch_id: branch,
    ready: analysis.firstReady(limit).map((r) => brief(r.work, true, r.diagnostics)),
    ready_total: analysis.readyCount,
    truncated: analysis.readyCount > limit,
    blocked_total: analysis.notReadyCount,
    diagnostic_counts: Object.fromEntries(
      Object.entries(diagnosticCounts).sort(([a], [b]) => (a < b ? -1 : 1)),
    ),
    blocked_sample: sample,
    source_issues: sourceIssues,
    source_warnings: sourceIssues.filter((i) => i.severity === "warning").length,
  };
}

/**
 * One work item's readiness on `branch` (null = main): its brief with `ready` (eligible for a new
 * claim), the diagnostics that say why not (or its unmet optional dependencies when it is) and
 * the claims in force on it, and where its source is. NotFound when the key names no work item.
 */
export async function workReadiness(
  db: Kysely<LedgerSchema>,
  revision: number,
  branch: string | null,
  key: string,
): Promise<ReadyBrief & { source: SourceRef }> {
  const [analysis, revisions] = await Promise.all([
    analyseReady(db, revision, branch),
    briefRevisions(db, revision),
  ]);
  const { projection, claims } = analysis;
  const item = projection.entity(key);
  if (item?.kind !== "work") throw workNotFound(key);
  const claimedBy = new Map(claims.map((c) => [c.work, c]));
  const blockers = TERMINAL.has(item.status)
    ? [
        {
          code: "status_not_ready" as const,
          work_item_key: key,
          detail: `status is ${item.status}`,
        },
      ]
    : notReadyDiagnostics(analysis, item, claimedBy);
  const source = item.source;
  if (blockers.length > 0) {
    return { ...readyBrief(item, revisions, false, blockers, claims), source };
  }
  const entry = projection.derive(READINESS).unblocked.find((e) => e.work.key === key);
  return { ...readyBrief(item, revisions, true, entry?.diagnostics ?? [], claims), source };
}
