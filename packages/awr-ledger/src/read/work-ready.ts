import type { Kysely } from "kysely";
import type { LedgerSchema } from "../storage/schema.js";
import {
  type ActiveClaim,
  activeClaims,
  allDependencies,
  type EntityView,
  entitiesOfKind,
  priorityRank,
  type SourceRef,
  stringOf,
  stringsOf,
} from "./entity-view.js";
import { memoAt } from "./read-cache.js";

export interface WorkReadyInput {
  limit?: number | undefined;
}

export interface ReadyItem {
  work: string;
  id: string;
  title: string;
  priority: unknown;
  goal: string | null;
  milestone: string | null;
  next_action: string | null;
  summary: string | null;
  tags: string[];
  /** Non-blocking observations, e.g. an unmet optional dependency. */
  diagnostics: string[];
  source: SourceRef;
}

export interface WorkReadyResult {
  project_revision: number;
  items: ReadyItem[];
  /** Ready items in total, before `limit`. */
  total_ready: number;
  active_claims: ActiveClaim[];
}

/** Shared between calls at one revision: read-only. */
export interface ReadyAnalysis {
  ready: readonly { work: EntityView; diagnostics: readonly string[] }[];
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
  unblocked: readonly { work: EntityView; diagnostics: readonly string[] }[];
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
    const unblocked: { work: EntityView; diagnostics: string[] }[] = [];
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
        .map((d) => `optional dependency ${d.work} is ${d.status}`);
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

export async function workReady(
  db: Kysely<LedgerSchema>,
  input: WorkReadyInput,
  revision: number,
): Promise<WorkReadyResult> {
  const limit = input.limit ?? 20;
  const analysis = await analyseReady(db, revision);
  return {
    project_revision: revision,
    items: analysis.ready.slice(0, limit).map(({ work, diagnostics }) => ({
      work: work.key,
      id: work.id,
      title: work.title,
      priority: work.attributes["priority"] ?? null,
      goal: stringOf(work, "goal"),
      milestone: stringOf(work, "milestone"),
      next_action: stringOf(work, "next_action"),
      summary: work.summary,
      tags: stringsOf(work, "tags"),
      diagnostics: [...diagnostics],
      source: work.source,
    })),
    total_ready: analysis.ready.length,
    active_claims: analysis.claims,
  };
}
