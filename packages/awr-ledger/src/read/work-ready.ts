import type { Kysely } from "kysely";
import type { LedgerSchema } from "../storage/schema.js";
import {
  type ActiveClaim,
  activeClaims,
  type SourceRef,
  stringOf,
  stringsOf,
} from "./entity-view.js";
import type { Projection } from "./projection.js";
import { projectionAt } from "./projection-cache.js";
import { isUnblocked, READINESS, type UnblockedEntry } from "./readiness.js";

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

/** Readiness with the claims in force applied: shared between callers, read-only. */
export interface ReadyAnalysis {
  projection: Projection;
  /** Ready items in total: unblocked and not claimed. */
  readyCount: number;
  /** Status ready, but a required dependency is not completed. */
  dependencyBlockedCount: number;
  claims: ActiveClaim[];
  /** The first `limit` ready items, in ready order. */
  firstReady(limit: number): UnblockedEntry[];
}

/**
 * Ready work: status `ready`, no active claim, every required dependency completed. An unmet
 * optional dependency does not block; it becomes a diagnostic. Sorted by priority, then by source
 * order. The dependency analysis is kept with the projection and updated by in-place changes
 * (readiness.ts); claims (which expire by the clock) are read on every call.
 */
export async function analyseReady(
  db: Kysely<LedgerSchema>,
  revision: number,
): Promise<ReadyAnalysis> {
  const [projection, claims] = await Promise.all([projectionAt(db, revision), activeClaims(db)]);
  const { unblocked, dependencyBlocked } = projection.derive(READINESS);
  const claimed = new Set(claims.map((c) => c.work));
  let claimedReady = 0;
  for (const work of claimed) if (isUnblocked(projection, work)) claimedReady++;
  return {
    projection,
    readyCount: unblocked.length - claimedReady,
    dependencyBlockedCount: dependencyBlocked.length,
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

export async function workReady(
  db: Kysely<LedgerSchema>,
  input: WorkReadyInput,
  revision: number,
): Promise<WorkReadyResult> {
  const limit = input.limit ?? 20;
  const analysis = await analyseReady(db, revision);
  return {
    project_revision: revision,
    items: analysis.firstReady(limit).map(({ work, diagnostics }) => ({
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
    total_ready: analysis.readyCount,
    active_claims: analysis.claims,
  };
}
