import type { Kysely } from "kysely";
import { WORK_STATUSES } from "../sources/adapters/yaml-ledger-v1.js";
import type { LedgerSchema } from "../storage/schema.js";
import { entitiesOfKind, stringOf } from "./entity-view.js";
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

export async function projectStatus(
  db: Kysely<LedgerSchema>,
  project: { id: string; name: string },
  revision: number,
): Promise<ProjectStatusResult> {
  const [work, goals, milestones, analysis, kinds, deps] = await Promise.all([
    entitiesOfKind(db, "work"),
    entitiesOfKind(db, "goal"),
    entitiesOfKind(db, "milestone"),
    analyseReady(db),
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
      .execute(),
  ]);
  const counts: Record<string, number> = Object.fromEntries(
    [...WORK_STATUSES, "unknown"].map((s) => [s, 0]),
  );
  for (const item of work) counts[item.status] = (counts[item.status] ?? 0) + 1;
  const claimedBy = new Map(analysis.claims.map((c) => [c.work, c.session]));
  const current = work
    .filter((w) => w.status === "in_progress" || w.status === "claimed" || claimedBy.has(w.key))
    .map((w) => ({
      work: w.key,
      title: w.title,
      status: w.status,
      next_action: stringOf(w, "next_action"),
      claimed_by: claimedBy.get(w.key) ?? null,
    }));
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
  for (const dep of deps) {
    if (dep.key === null) {
      gaps.push({
        gap: "unknown_dependency",
        key: dep.work_key,
        message: `${dep.work_key} depends on ${dep.depends_on}, which is not defined`,
      });
    }
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
    counts_by_status: counts,
    total_work: work.length,
    entity_counts: Object.fromEntries(kinds.map((k) => [k.kind, Number(k.n)])),
    current_work: current,
    ready_count: analysis.ready.length,
    blocked_count: counts["blocked"] ?? 0,
    dependency_blocked_count: analysis.dependency_blocked.length,
    next_action: nextAction,
    organisation_gaps: gaps,
  };
}
