import type { Kysely } from "kysely";
import type { LedgerSchema } from "../storage/schema.js";
import {
  type ActiveClaim,
  activeClaims,
  allDependencies,
  type EntityView,
  entitiesOfKind,
  priorityRank,
} from "./entity-view.js";
import { memoAt } from "./read-cache.js";
import { briefRevisions, type ReadyBrief, type ReadyDiagnostic, readyBrief } from "./work-brief.js";

export interface WorkReadyInput {
  limit?: number | undefined;
}

/**
 * awr_work_ready's answer in the original's shape: the ready items (at most `limit`), how many
 * there are, and a sample of the open work that is not selectable with counts of why.
 */
export interface WorkReadyResult {
  project_revision: number;
  /** Work branches are not supported yet: always the baseline. */
  branch_id: null;
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
}

/** Shared between calls at one revision: read-only. */
export interface ReadyAnalysis {
  ready: readonly { work: EntityView; diagnostics: readonly ReadyDiagnostic[] }[];
  /** Status ready, but a required dependency is not completed. */
  dependency_blocked: readonly { work: EntityView; unmet: string[] }[];
  /** Status ready, but an active claim holds it. */
  claimed: { work: EntityView; session: string }[];
  claims: ActiveClaim[];
}

/** The revision-bound part of the ready analysis: everything but the claims. */
interface ReadyBase {
  work: readonly EntityView[];
  /** Status ready with every required dependency completed: in ready order (priority, source). */
  unblocked: readonly { work: EntityView; diagnostics: readonly ReadyDiagnostic[] }[];
  /** Status ready, in source order. */
  candidates: readonly EntityView[];
  /** Position of each unblocked item in `candidates`. */
  candidateIndex: ReadonlyMap<string, number>;
  dependency_blocked: readonly { work: EntityView; unmet: string[] }[];
}

function readyBase(db: Kysely<LedgerSchema>, revision: number): Promise<ReadyBase> {
  return memoAt(db, revision, "ready-base", async () => {
    const [work, deps] = await Promise.all([
      entitiesOfKind(db, revision, "work"),
      allDependencies(db, revision),
    ]);
    const candidates = work.filter((w) => w.status === "ready");
    const unblocked: { work: EntityView; diagnostics: ReadyDiagnostic[] }[] = [];
    const candidateIndex = new Map<string, number>();
    const dependencyBlocked: { work: EntityView; unmet: string[] }[] = [];
    for (const [index, item] of candidates.entries()) {
      const list = deps.get(item.key) ?? [];
      const unmet = list
        .filter((d) => d.required && !d.satisfied)
        .map((d) => `${d.work} (${d.status})`);
      if (unmet.length > 0) {
        dependencyBlocked.push({ work: item, unmet });
        continue;
      }
      const diagnostics = list
        .filter((d) => !d.required && !d.satisfied)
        .map(
          (d): ReadyDiagnostic => ({
            code: "optional_dependency_incomplete",
            work_item_key: d.work,
            detail: `optional dependency ${d.work} is ${d.status}`,
          }),
        );
      unblocked.push({ work: item, diagnostics });
      candidateIndex.set(item.key, index);
    }
    const order = new Map(work.map((w, i) => [w.key, i]));
    unblocked.sort(
      (a, b) =>
        priorityRank(a.work.attributes["priority"]) - priorityRank(b.work.attributes["priority"]) ||
        (order.get(a.work.key) ?? 0) - (order.get(b.work.key) ?? 0),
    );
    return { work, unblocked, candidates, candidateIndex, dependency_blocked: dependencyBlocked };
  });
}

/**
 * Ready work: status `ready`, no active claim, every required dependency completed. An unmet
 * optional dependency does not block; it becomes a diagnostic. Sorted by priority, then by source
 * order. The dependency analysis is memoised per project revision; claims (which expire by the
 * clock) are read on every call.
 */
export async function analyseReady(
  db: Kysely<LedgerSchema>,
  revision: number,
): Promise<ReadyAnalysis> {
  const [base, claims] = await Promise.all([readyBase(db, revision), activeClaims(db)]);
  const claimedBy = new Map(claims.map((c) => [c.work, c.session_id]));
  const ready =
    claimedBy.size === 0
      ? base.unblocked
      : base.unblocked.filter(({ work }) => !claimedBy.has(work.key));
  const claimed: ReadyAnalysis["claimed"] = [];
  for (const c of claims) {
    const index = base.candidateIndex.get(c.work);
    const work = index === undefined ? undefined : base.candidates[index];
    if (work !== undefined) claimed.push({ work, session: c.session_id });
  }
  claimed.sort(
    (a, b) =>
      (base.candidateIndex.get(a.work.key) ?? 0) - (base.candidateIndex.get(b.work.key) ?? 0),
  );
  return { ready, dependency_blocked: base.dependency_blocked, claimed, claims };
}

const TERMINAL = new Set(["completed", "cancelled"]);

/** Open work that cannot be picked now, each with why, in source order. */
function notReady(
  base: ReadyBase,
  analysis: ReadyAnalysis,
): { work: EntityView; diagnostics: ReadyDiagnostic[] }[] {
  const ready = new Set(analysis.ready.map((r) => r.work.key));
  const unmet = new Map(base.dependency_blocked.map((d) => [d.work.key, d.unmet]));
  const claimedBy = new Map(analysis.claims.map((c) => [c.work, c]));
  const out: { work: EntityView; diagnostics: ReadyDiagnostic[] }[] = [];
  for (const item of base.work) {
    if (TERMINAL.has(item.status) || ready.has(item.key)) continue;
    const diagnostics: ReadyDiagnostic[] = [];
    const key = item.key;
    if (item.status !== "ready") {
      diagnostics.push({
        code: "status_not_ready",
        work_item_key: key,
        detail: `status is ${item.status}`,
      });
    }
    for (const dep of unmet.get(key) ?? []) {
      const detail = `required dependency ${dep} is not completed`;
      diagnostics.push({ code: "required_dependency_incomplete", work_item_key: key, detail });
    }
    const claim = claimedBy.get(key);
    if (claim !== undefined) {
      const detail = `claimed by session ${claim.session_id} (${claim.agent_id})`;
      diagnostics.push({ code: "active_claim", work_item_key: key, detail });
    }
    out.push({ work: item, diagnostics });
  }
  return out;
}

export async function workReady(
  db: Kysely<LedgerSchema>,
  input: WorkReadyInput,
  revision: number,
): Promise<WorkReadyResult> {
  const limit = input.limit ?? 10;
  const [base, analysis, revisions] = await Promise.all([
    readyBase(db, revision),
    analyseReady(db, revision),
    briefRevisions(db, revision),
  ]);
  const blocked = notReady(base, analysis);
  const counts: Record<string, number> = {};
  for (const { diagnostics } of blocked) {
    for (const code of new Set(diagnostics.map((d) => d.code)))
      counts[code] = (counts[code] ?? 0) + 1;
  }
  const brief = (work: EntityView, ready: boolean, diagnostics: readonly ReadyDiagnostic[]) =>
    readyBrief(work, revisions, ready, diagnostics, analysis.claims);
  return {
    project_revision: revision,
    branch_id: null,
    ready: analysis.ready.slice(0, limit).map((r) => brief(r.work, true, r.diagnostics)),
    ready_total: analysis.ready.length,
    truncated: analysis.ready.length > limit,
    blocked_total: blocked.length,
    diagnostic_counts: Object.fromEntries(
      Object.entries(counts).sort(([a], [b]) => (a < b ? -1 : 1)),
    ),
    blocked_sample: blocked.slice(0, 3).map((b) => brief(b.work, false, b.diagnostics)),
  };
}

/** How many open items are not selectable (for the status overview). */
export async function notReadyCount(db: Kysely<LedgerSchema>, revision: number): Promise<number> {
  const [base, analysis] = await Promise.all([readyBase(db, revision), analyseReady(db, revision)]);
  return notReady(base, analysis).length;
}
