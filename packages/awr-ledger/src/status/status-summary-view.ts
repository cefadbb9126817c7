import type { Kysely } from "kysely";
import { LIMITS } from "../core/limits.js";
import { isUnblocked } from "../read/readiness.js";
import { STATUS_SUMMARY } from "../read/status-summary.js";
import { shortText } from "../read/work-brief.js";
import { MISSING_FINGERPRINT } from "../sources/fingerprint.js";
import type { LedgerSchema } from "../storage/schema.js";
import {
  type Item,
  sortedCounts,
  sourceIssueFields,
  statusBrief,
  statusHeader,
} from "./status-header.js";
import { type ActionStatusInput, scopeOf, selectWork } from "./status-scope.js";
import { readStatusSnapshot } from "./status-snapshot.js";

const SHOWN = LIMITS.statusQueueShown;

/**
 * awr_project_status view=summary: the selection's counts, its current work (at most five),
 * how much is ready and how much is not selectable (claimed included, as awr_work_ready counts
 * it) with the first blockers and counts by diagnostic, the sources' freshness, the gaps that
 * concern the selection and the project's pending operations, each bounded with its omissions.
 * Read through `db`, one snapshot.
 */
export async function summaryStatus(
  db: Kysely<LedgerSchema>,
  project: { id: string; name: string },
  at: number,
  branch: string | null,
  input: ActionStatusInput,
): Promise<Record<string, unknown>> {
  const scope = scopeOf(input);
  const snapshot = await readStatusSnapshot(db, at, branch, undefined);
  const { projection, revision, revisions, sources, findings, sourceIssues } = snapshot;
  const works = projection.ofKind("work");
  const selected = selectWork(projection, scope);
  const keys = new Set(selected.map((w) => w.key));
  const claimed = new Set(snapshot.claims.map((c) => c.work));

  const counts: Record<string, number> = {};
  const current = [];
  const ready = [];
  const blocked: { work: (typeof selected)[number]; codes: string[] }[] = [];
  const diagnosticCounts: Record<string, number> = {};
  for (const work of selected) {
    counts[work.status] = (counts[work.status] ?? 0) + 1;
    if (work.status === "in_progress" || work.status === "claimed") current.push(work);
    if (work.status === "completed" || work.status === "cancelled") continue;
    if (work.status === "ready" && isUnblocked(projection, work.key) && !claimed.has(work.key)) {
      ready.push(work);
      continue;
    }
    const codes = new Set<string>();
    if (work.status !== "ready") codes.add("status_not_ready");
    else {
      for (const dep of projection.dependencies.get(work.key) ?? []) {
        const status = projection.entity(dep.target)?.status;
        if (dep.required && status !== "completed") codes.add("required_dependency_incomplete");
      }
    }
    if (claimed.has(work.key)) codes.add("active_claim");
    for (const code of codes) diagnosticCounts[code] = (diagnosticCounts[code] ?? 0) + 1;
    blocked.push({ work, codes: [...codes].sort() });
  }
  const focus = current[0] ?? ready[0];
  const summary = projection.derive(STATUS_SUMMARY);
  const gaps = summary.gaps.filter((g) => keys.has(g.key) || scope.goal === g.key);
  const notFresh = sources.filter((s) => s.fingerprint === MISSING_FINGERPRINT);
  const pending = findings.filter((f) => f.kind === "operation");
  const open = works.filter((w) => w.status !== "completed" && w.status !== "cancelled").length;
  const state =
    notFresh.length > 0
      ? "source_unreadable"
      : works.length === 0 || summary.gaps.length > 0
        ? "needs_organization"
        : open === 0
          ? "completed"
          : "ready";
  const focusAction = focus === undefined ? null : (focus.attributes["next_action"] ?? null);
  return {
    ...statusHeader({ view: "summary", project, revision, branch, scope, total: selected.length }),
    counts: sortedCounts(counts),
    count_basis: "source status; acceptance and delivery are not inferred",
    project_work_total: works.length,
    current: current.slice(0, SHOWN).map((w) => statusBrief(w, revisions)),
    current_total: current.length,
    ready_count: ready.length,
    blocked_count: blocked.length,
    suggested_work: focus === undefined ? null : statusBrief(focus, revisions),
    next_action:
      typeof focusAction === "string" && focusAction.trim() !== ""
        ? shortText(focusAction)
        : selected.length === 0
          ? "No work in this selection; review its source scope."
          : focus !== undefined
            ? `Start ${focus.key}: ${shortText(focus.title)}.`
            : "Nothing is ready: read the blockers and clear the prerequisite that blocks the work.",
    blockers: blocked.slice(0, SHOWN).map(
      (b): Item => ({
        work: b.work.key,
        codes: b.codes,
        blocker:
          typeof b.work.attributes["blocker"] === "string"
            ? shortText(b.work.attributes["blocker"])
            : null,
      }),
    ),
    diagnostic_counts: sortedCounts(diagnosticCounts),
    source_freshness: {
      basis: "every registered source in this snapshot",
      total: sources.length,
      fresh: sources.length - notFresh.length,
      not_fresh: notFresh.slice(0, SHOWN).map((s) => ({ id: s.path, freshness: "missing" })),
    },
    organization: {
      project_state: state,
      project_gap_total: summary.gaps.length,
      project_business_execution_ready: state === "ready",
      selected_gaps: gaps.slice(0, SHOWN).map((g) => ({ code: g.gap, target: g.key })),
      selected_gap_total: gaps.length,
    },
    pending_operations: {
      basis: "requests whose outcome is unknown, project-wide",
      total: pending.length,
      items: pending.slice(0, SHOWN),
      runtime_attention_total: findings.length,
    },
    omissions: {
      current: Math.max(0, current.length - SHOWN),
      blockers: Math.max(0, blocked.length - SHOWN),
      selected_gaps: Math.max(0, gaps.length - SHOWN),
      organization_scan_truncated: false,
      pending_operations: Math.max(0, pending.length - SHOWN),
      outside_scope: works.length - selected.length,
      source_details: sources.length,
      not_fresh_sources: Math.max(0, notFresh.length - SHOWN),
      text_cap_characters: 240,
      not_evaluated: ["host-private receipts", "evidence currency unless source_sha is given"],
      details: ["status --view full", "work show KEY", "source list", "operation list"],
    },
    ...sourceIssueFields(sourceIssues),
  };
}
