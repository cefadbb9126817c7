import type { Kysely } from "kysely";
import type { LedgerSchema } from "../storage/schema.js";
import {
  type ActiveClaim,
  activeClaims,
  dependenciesOf,
  type EntityView,
  entitiesOfKind,
  priorityRank,
  type SourceRef,
  stringOf,
  stringsOf,
} from "./entity-view.js";

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

export interface ReadyAnalysis {
  ready: { work: EntityView; diagnostics: string[] }[];
  /** Status ready, but a required dependency is not completed. */
  dependency_blocked: { work: EntityView; unmet: string[] }[];
  /** Status ready, but an active claim holds it. */
  claimed: { work: EntityView; session: string }[];
  claims: ActiveClaim[];
}

/**
 * Ready work: status `ready`, no active claim, every required dependency completed. An unmet
 * optional dependency does not block; it becomes a diagnostic. Sorted by priority, then by source
 * order.
 */
export async function analyseReady(db: Kysely<LedgerSchema>): Promise<ReadyAnalysis> {
  const work = await entitiesOfKind(db, "work");
  const candidates = work.filter((w) => w.status === "ready");
  const claims = await activeClaims(db);
  const claimedBy = new Map(claims.map((c) => [c.work, c.session]));
  const deps = await dependenciesOf(
    db,
    candidates.map((c) => c.key),
  );
  const analysis: ReadyAnalysis = { ready: [], dependency_blocked: [], claimed: [], claims };
  for (const item of candidates) {
    const list = deps.get(item.key) ?? [];
    const unmet = list
      .filter((d) => d.required && !d.satisfied)
      .map((d) => `${d.work} (${d.status})`);
    const session = claimedBy.get(item.key);
    if (unmet.length > 0) analysis.dependency_blocked.push({ work: item, unmet });
    else if (session !== undefined) analysis.claimed.push({ work: item, session });
    else {
      const diagnostics = list
        .filter((d) => !d.required && !d.satisfied)
        .map((d) => `optional dependency ${d.work} is ${d.status}`);
      analysis.ready.push({ work: item, diagnostics });
    }
  }
  const order = new Map(work.map((w, i) => [w.key, i]));
  analysis.ready.sort(
    (a, b) =>
      priorityRank(a.work.attributes["priority"]) - priorityRank(b.work.attributes["priority"]) ||
      (order.get(a.work.key) ?? 0) - (order.get(b.work.key) ?? 0),
  );
  return analysis;
}

export async function workReady(
  db: Kysely<LedgerSchema>,
  input: WorkReadyInput,
  revision: number,
): Promise<WorkReadyResult> {
  const limit = input.limit ?? 20;
  const analysis = await analyseReady(db);
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
      diagnostics,
      source: work.source,
    })),
    total_ready: analysis.ready.length,
    active_claims: analysis.claims,
  };
}
