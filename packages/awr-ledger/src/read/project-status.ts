import type { Kysely } from "kysely";
import type { LedgerSchema } from "../storage/schema.js";
import {
  type ActiveClaim,
  type EntityView,
  entitiesOfKind,
  priorityRank,
  stringOf,
} from "./entity-view.js";
import { memoAt } from "./read-cache.js";
import { briefRevisions, type WorkBrief, workBrief } from "./work-brief.js";
import { analyseReady, notReadyCount } from "./work-ready.js";

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

/** awr_project_status's answer, in the original's field names plus the organisation gaps. */
export interface ProjectStatusResult {
  project_id: string;
  /** The project's name. */
  project: string;
  project_revision: number;
  /** Work branches are not supported yet: always the baseline. */
  branch_id: null;
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
  /** Reads answer only from fresh sources, so there are never issues to report here. */
  source_issues: never[];
  source_warnings: number;
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

/** The revision-bound part of the status: everything but the claims. */
interface StatusBase {
  counts: Record<string, number>;
  total: number;
  entity_counts: Record<string, number>;
  organisation_gaps: readonly OrganisationGap[];
  /** Items in progress or claimed by status, and each work item's source position. */
  current: readonly EntityView[];
  position: ReadonlyMap<string, number>;
  work: readonly EntityView[];
  notes: readonly LedgerNote[];
}

function statusBase(db: Kysely<LedgerSchema>, revision: number): Promise<StatusBase> {
  return memoAt(db, revision, "status-base", async () => {
    const [work, goals, milestones, kinds, deps, notes] = await Promise.all([
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
      db
        .selectFrom("sources")
        .select(["path", "note"])
        .where("note", "is not", null)
        .orderBy("path")
        .execute(),
    ]);
    // Statuses in code-point order (a collator would cost milliseconds on a cold start).
    const tally = new Map<string, number>();
    for (const item of work) tally.set(item.status, (tally.get(item.status) ?? 0) + 1);
    const counts = Object.fromEntries([...tally].sort(([a], [b]) => (a < b ? -1 : 1)));
    return {
      counts,
      total: work.length,
      entity_counts: Object.fromEntries(kinds.map((k) => [k.kind, Number(k.n)])),
      organisation_gaps: organisationGaps(work, goals, milestones, deps),
      current: work.filter((w) => w.status === "in_progress" || w.status === "claimed"),
      position: new Map(work.map((w, i) => [w.key, i])),
      work,
      notes: notes.map((n) => ({
        source: n.path,
        origin: "ledger_note" as const,
        label: `the current: block written in ${n.path}, shown as written (AWR does not compute or check it)`,
        current: (JSON.parse(n.note as string) as { current?: unknown }).current ?? null,
      })),
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

/**
 * Items in progress or claimed by status, plus items an active claim holds: highest priority
 * first, then in source order.
 */
function currentWork(base: StatusBase, claims: readonly ActiveClaim[]): readonly EntityView[] {
  const inCurrent = new Set(base.current.map((w) => w.key));
  const extra = claims
    .filter((c) => !inCurrent.has(c.work) && base.position.has(c.work))
    .map((c) => base.work[base.position.get(c.work) as number] as EntityView);
  return [...base.current, ...new Set(extra)].sort(
    (a, b) =>
      priorityRank(a.attributes["priority"]) - priorityRank(b.attributes["priority"]) ||
      (base.position.get(a.key) ?? 0) - (base.position.get(b.key) ?? 0),
  );
}

const CURRENT_SHOWN = 5;

/**
 * The project overview. Counts, entity totals and organisation gaps depend only on the
 * projection and are memoised per project revision; claims are read on every call.
 */
export async function projectStatus(
  db: Kysely<LedgerSchema>,
  project: { id: string; name: string },
  revision: number,
): Promise<ProjectStatusResult> {
  const [base, analysis, revisions, blocked] = await Promise.all([
    statusBase(db, revision),
    analyseReady(db, revision),
    briefRevisions(db, revision),
    notReadyCount(db, revision),
  ]);
  // The current-work list depends on the revision and on which claims are in force.
  const claimsKey = analysis.claims.map((c) => `${c.work}\u0000${c.session_id}`).join("\u0001");
  const current = await memoAt(db, revision, `status-current:${claimsKey}`, async () =>
    currentWork(base, analysis.claims),
  );
  const focus = current[0] ?? analysis.ready[0]?.work;
  const next = focus === undefined ? null : stringOf(focus, "next_action");
  return {
    project_id: project.id,
    project: project.name,
    project_revision: revision,
    branch_id: null,
    counts: { ...base.counts },
    total: base.total,
    entity_counts: { ...base.entity_counts },
    current: current.slice(0, CURRENT_SHOWN).map((w) => workBrief(w, revisions)),
    current_total: current.length,
    ready_count: analysis.ready.length,
    blocked_count: blocked,
    dependency_blocked_count: analysis.dependency_blocked.length,
    next_action:
      next !== null && next.trim() !== ""
        ? next
        : focus !== undefined
          ? `Start ${focus.key}: ${focus.title}.`
          : blocked === 0
            ? "No open work remains: every work item is completed or cancelled."
            : "Nothing is ready: read the ready diagnostics and clear the prerequisite that blocks the work.",
    suggested_work: focus === undefined ? null : workBrief(focus, revisions),
    organisation_gaps: [...base.organisation_gaps],
    source_issues: [],
    source_warnings: 0,
    ledger_notes: base.notes.map((n) => ({ ...n })),
  };
}
