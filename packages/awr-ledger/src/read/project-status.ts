import type { Kysely } from "kysely";
import { WORK_STATUSES } from "../sources/adapters/yaml-ledger-v1.js";
import type { LedgerSchema } from "../storage/schema.js";
import { type ActiveClaim, type EntityView, entitiesOfKind, stringOf } from "./entity-view.js";
import { memoAt } from "./read-cache.js";
import { analyseReady } from "./work-ready.js";

export interface OrganisationGap {
  gap:
    | "work_without_goal"
    | "goal_without_work"
    | "unknown_goal"
    | "unknown_dependency"
    | "unknown_milestone"
    | "unknown_status";
  key: string;
  message: string;
}

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
}

/** The revision-bound part of the status: everything but the claims. */
interface StatusBase {
  counts_by_status: Record<string, number>;
  total_work: number;
  entity_counts: Record<string, number>;
  organisation_gaps: readonly OrganisationGap[];
  /** Items in progress or claimed by status, and each work item's source position. */
  current: readonly EntityView[];
  position: ReadonlyMap<string, number>;
  work: readonly EntityView[];
}

function statusBase(db: Kysely<LedgerSchema>, revision: number): Promise<StatusBase> {
  return memoAt(db, revision, "status-base", async () => {
    const [work, goals, milestones, kinds, deps] = await Promise.all([
      entitiesOfKind(db, revision, "work"),
      entitiesOfKind(db, revision, "goal"),
      entitiesOfKind(db, revision, "milestone"),
      db
        .selectFrom("entities")
        .select(["kind"])
        .select((eb) => eb.fn.countAll().as("n"))
        .groupBy("kind")
        .execute(),
      db
        .selectFrom("dependencies as d")
        .leftJoin("entities as e", "e.key", "d.depends_on")
        .select(["d.work_key", "d.depends_on", "e.key"])
        .where("e.key", "is", null)
        .execute(),
    ]);
    const counts: Record<string, number> = Object.fromEntries(
      [...WORK_STATUSES, "unknown"].map((s) => [s, 0]),
    );
    for (const item of work) counts[item.status] = (counts[item.status] ?? 0) + 1;
    return {
      counts_by_status: counts,
      total_work: work.length,
      entity_counts: Object.fromEntries(kinds.map((k) => [k.kind, Number(k.n)])),
      organisation_gaps: organisationGaps(work, goals, milestones, deps),
      current: work.filter((w) => w.status === "in_progress" || w.status === "claimed"),
      position: new Map(work.map((w, i) => [w.key, i])),
      work,
    };
  });
}

function organisationGaps(
  work: readonly EntityView[],
  goals: readonly EntityView[],
  milestones: readonly EntityView[],
  unknownDeps: readonly { work_key: string; depends_on: string }[],
): OrganisationGap[] {
  const goalKeys = new Set(goals.map((g) => g.key));
  const milestoneKeys = new Set(milestones.map((m) => m.key));
  const gaps: OrganisationGap[] = [];
  const open = work.filter((w) => w.status !== "completed" && w.status !== "cancelled");
  for (const item of open) {
    const goal = stringOf(item, "goal");
    if (goal === null) {
      gaps.push({ gap: "work_without_goal", key: item.key, message: `${item.key} names no goal` });
    } else if (!goalKeys.has(goal)) {
      gaps.push({
        gap: "unknown_goal",
        key: item.key,
        message: `${item.key} names goal ${goal}, which no source defines`,
      });
    }
    const milestone = stringOf(item, "milestone");
    if (milestone !== null && !milestoneKeys.has(milestone)) {
      gaps.push({
        gap: "unknown_milestone",
        key: item.key,
        message: `${item.key} names milestone ${milestone}, which is not defined`,
      });
    }
    if (item.status === "unknown") {
      gaps.push({
        gap: "unknown_status",
        key: item.key,
        message: `${item.key} has status "${item.raw_status}", which AWR does not know`,
      });
    }
  }
  for (const dep of unknownDeps) {
    gaps.push({
      gap: "unknown_dependency",
      key: dep.work_key,
      message: `${dep.work_key} depends on ${dep.depends_on}, which is not defined`,
    });
  }
  const goalsWithWork = new Set(work.map((w) => stringOf(w, "goal")));
  for (const goal of goals) {
    if (goal.status === "active" && !goalsWithWork.has(goal.key)) {
      gaps.push({
        gap: "goal_without_work",
        key: goal.key,
        message: `active goal ${goal.key} has no work item`,
      });
    }
  }
  return gaps;
}

type CurrentWork = ProjectStatusResult["current_work"][number];

/** Items in progress or claimed by status, plus items an active claim holds, in source order. */
function currentWork(base: StatusBase, claims: readonly ActiveClaim[]): readonly CurrentWork[] {
  const claimedBy = new Map(claims.map((c) => [c.work, c.session_id]));
  let currentItems = base.current;
  if (claimedBy.size > 0) {
    const inCurrent = new Set(base.current.map((w) => w.key));
    const extra = claims
      .filter((c) => !inCurrent.has(c.work) && base.position.has(c.work))
      .map((c) => base.work[base.position.get(c.work) as number] as EntityView);
    if (extra.length > 0) {
      currentItems = [...base.current, ...extra].sort(
        (a, b) => (base.position.get(a.key) ?? 0) - (base.position.get(b.key) ?? 0),
      );
    }
  }
  return currentItems.map((w) => ({
    work: w.key,
    title: w.title,
    status: w.status,
    next_action: stringOf(w, "next_action"),
    claimed_by: claimedBy.get(w.key) ?? null,
  }));
}

/**
 * The project overview. Counts, entity totals and organisation gaps depend only on the
 * projection and are memoised per project revision; claims are read on every call.
 */
export async function projectStatus(
  db: Kysely<LedgerSchema>,
  project: { id: string; name: string },
  revision: number,
): Promise<ProjectStatusResult> {
  const [base, analysis] = await Promise.all([
    statusBase(db, revision),
    analyseReady(db, revision),
  ]);
  // The current-work list depends on the revision and on which claims are in force.
  const claimsKey = analysis.claims.map((c) => `${c.work}\u0000${c.session_id}`).join("\u0001");
  const current = await memoAt(db, revision, `status-current:${claimsKey}`, async () =>
    currentWork(base, analysis.claims),
  );
  const withAction = current.find((c) => c.next_action !== null);
  const firstReady = analysis.ready[0]?.work;
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
  return {
    project_id: project.id,
    project_name: project.name,
    project_revision: revision,
    counts_by_status: { ...base.counts_by_status },
    total_work: base.total_work,
    entity_counts: { ...base.entity_counts },
    current_work: [...current],
    ready_count: analysis.ready.length,
    blocked_count: base.counts_by_status["blocked"] ?? 0,
    dependency_blocked_count: analysis.dependency_blocked.length,
    next_action: nextAction,
    organisation_gaps: [...base.organisation_gaps],
  };
}
