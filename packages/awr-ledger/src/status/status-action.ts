import type { Kysely } from "kysely";
import { countTokens } from "../context/tokens.js";
import { LIMITS } from "../core/limits.js";
import { LedgerError } from "../errors.js";
import { sql } from "../internal/kysely.js";
import type { ActiveClaim, EntityView } from "../read/entity-view.js";
import { activeClaims, stringOf, tableExists, workNotFound } from "../read/entity-view.js";
import type { Projection } from "../read/projection.js";
import { readStateAt } from "../read/projection-cache.js";
import { assessEvidence } from "../read/read-extras.js";
import { isUnblocked, priorityRank } from "../read/readiness.js";
import { missingSourceIssues } from "../read/source-issues.js";
import { type OrganisationGap, STATUS_SUMMARY } from "../read/status-summary.js";
import { type BriefRevisions, shortText } from "../read/work-brief.js";
import type { SourceIssue } from "../sources/adapters/index.js";
import { inReadSnapshot, readClock } from "../storage/read-clock.js";
import type { LedgerSchema } from "../storage/schema.js";

import { STATUS_QUEUES, type StatusQueue } from "./status-queues.js";

export { STATUS_QUEUES, type StatusQueue } from "./status-queues.js";

/** One queue read page by page (the CLI's `--queue`, `--offset`, `--page-size`). */
export interface StatusPageRequest {
  queue: StatusQueue;
  offset?: number | undefined;
  page_size?: number | undefined;
}

export interface ActionStatusInput {
  work?: string[] | undefined;
  goal?: string | null | undefined;
  milestone?: string | null | undefined;
  source_sha?: string | undefined;
}

/** A gap that keeps a work item from being worked on (the others are advice). */
const STRUCTURAL = new Set<OrganisationGap["gap"]>([
  "unknown_status",
  "unknown_dependency",
  "unknown_goal",
  "unknown_milestone",
]);

export type Item = Record<string, unknown>;

/** view=action's answer: its counts typed, the rest as documented on actionStatus. */
export interface ActionStatusView {
  view: "action";
  schema_version: 1;
  project: string;
  project_id: string;
  project_revision: number;
  branch_id: string | null;
  total: number;
  project_work_total: number;
  counts: Record<string, number>;
  current_total: number;
  ready_count: number;
  waiting_count: number;
  blocked_count: number;
  current: Item[];
  ready: Item[];
  waiting: Item[];
  blocked: Item[];
  suggested_work: Item | null;
  next_action: unknown;
  [field: string]: unknown;
}

interface Entry {
  work: EntityView;
  codes: string[];
  claims: ActiveClaim[];
  extra: Item;
}

const short = (text: string | null): string | null => (text === null ? null : shortText(text));

/** A status scope: work keys, a goal, a milestone; they intersect. */
export interface StatusScope {
  work: string[];
  goal: string | null;
  milestone: string | null;
}

export const scopeOf = (input: ActionStatusInput): StatusScope => ({
  work: input.work ?? [],
  goal: input.goal ?? null,
  milestone: input.milestone ?? null,
});

/**
 * The scope's work items, highest priority first, then in source order. A scope naming more
 * than LIMITS.statusScopeWork keys is InvalidInput; an unknown work key, goal or milestone is
 * NotFound.
 */
export function selectWork(projection: Projection, scope: StatusScope): EntityView[] {
  if (scope.work.length > LIMITS.statusScopeWork) {
    throw new LedgerError(
      "InvalidInput",
      `work names ${scope.work.length} keys; a status scope takes at most ${LIMITS.statusScopeWork}`,
      { field: "work" },
    );
  }
  for (const key of scope.work) {
    if (projection.slot(key)?.kind !== "work") throw workNotFound(key);
  }
  if (scope.goal !== null && projection.slot(scope.goal)?.kind !== "goal") {
    throw new LedgerError("NotFound", `goal ${scope.goal} is not in the ledger`, {
      goal: scope.goal,
    });
  }
  if (scope.milestone !== null && projection.slot(scope.milestone)?.kind !== "milestone") {
    throw new LedgerError("NotFound", `milestone ${scope.milestone} is not in the ledger`, {
      milestone: scope.milestone,
    });
  }
  const wanted = new Set(scope.work);
  return projection
    .ofKind("work")
    .map((work, position) => ({ work, position, rank: priorityRank(work.attributes["priority"]) }))
    .filter(
      ({ work }) =>
        (wanted.size === 0 || wanted.has(work.key)) &&
        (scope.goal === null || stringOf(work, "goal") === scope.goal) &&
        (scope.milestone === null || stringOf(work, "milestone") === scope.milestone),
    )
    .sort((a, b) => a.rank - b.rank || a.position - b.position)
    .map((s) => s.work);
}

/** A work item as the action and summary views list it (texts cut at 240 characters). */
export function statusBrief(work: EntityView, revisions: BriefRevisions): Item {
  return {
    key: work.key,
    title: shortText(work.title),
    status: work.status,
    raw_status: shortText(work.raw_status ?? work.status),
    owner: stringOf(work, "owner"),
    next_action: short(stringOf(work, "next_action")),
    blocker: short(stringOf(work, "blocker")),
    source_revision: revisions.sources.get(work.source.path) ?? null,
    details: { cli: ["work", "show", work.key], mcp: "awr_work_get" },
  };
}

/** Pending user waits of sessions bound to work on `branch`, by work key, oldest first. */
async function pendingWaits(
  db: Kysely<LedgerSchema>,
  branch: string | null,
): Promise<Map<string, string[]>> {
  const byWork = new Map<string, string[]>();
  if (!(await tableExists(db, "waits"))) return byWork;
  const rows = await db
    .selectFrom("waits as w")
    .innerJoin("sessions as s", "s.id", "w.session")
    .select(["w.id", "s.work"])
    .where("w.status", "=", "waiting_user")
    .where((eb) => (branch === null ? eb("s.branch", "is", null) : eb("s.branch", "=", branch)))
    .orderBy("w.created_revision")
    .orderBy("w.id")
    .execute();
  for (const row of rows) {
    if (row.work === null) continue;
    const list = byWork.get(row.work) ?? [];
    list.push(row.id);
    byWork.set(row.work, list);
  }
  return byWork;
}

/** Runtime findings project-wide: requests whose outcome is unknown, and pending waits. */
export async function pendingFindings(
  db: Kysely<LedgerSchema>,
): Promise<{ code: string; kind: string; id: string }[]> {
  const findings: { code: string; kind: string; id: string }[] = [];
  if (await tableExists(db, "operations")) {
    const ops = await db
      .selectFrom("operations")
      .select("id")
      .where("status", "=", "started")
      .orderBy("id")
      .execute();
    for (const op of ops) {
      findings.push({ code: "operation_outcome_unknown", kind: "operation", id: op.id });
    }
  }
  if (await tableExists(db, "waits")) {
    const waits = await db
      .selectFrom("waits")
      .select("id")
      .where("status", "=", "waiting_user")
      .orderBy("id")
      .execute();
    for (const wait of waits) findings.push({ code: "wait_pending", kind: "wait", id: wait.id });
  }
  return findings;
}

/** Completed work items with recorded evidence verified at `sha` on `branch`. */
async function verifiedAt(
  db: Kysely<LedgerSchema>,
  sha: string,
  branch: string | null,
): Promise<Set<string>> {
  const rows = await db
    .selectFrom("evidence")
    .select(["work", "source_sha", "branch"])
    .where(sql<boolean>`lower(source_sha) = ${sha.toLowerCase()}`)
    .execute();
  const verified = new Set<string>();
  for (const row of rows) {
    if (row.work === null) continue;
    const assessed = assessEvidence(
      { source_sha: row.source_sha ?? null, branch_id: row.branch ?? null },
      sha,
      branch,
    );
    if (assessed.currency === "current") verified.add(row.work);
  }
  return verified;
}

/** What one status answer reads: the projection and the runtime rows of one read snapshot. */
export interface StatusSnapshot {
  /** The project revision of the snapshot. */
  revision: number;
  projection: Projection;
  claims: ActiveClaim[];
  revisions: BriefRevisions;
  sources: { path: string; fingerprint: string }[];
  sourceIssues: SourceIssue[];
  waits: Map<string, string[]>;
  findings: { code: string; kind: string; id: string }[];
  /** Work with evidence verified at `sha` (when given). */
  verified: Set<string> | undefined;
}

/**
 * Reads a status answer's inputs from ONE read snapshot (inReadSnapshot): the claims, waits,
 * requests, sources and evidence rows of one commit, and the cached projection only when its
 * generation is that commit's (else the projection is brought up to date and the snapshot read
 * again), so the totals, queues and pages of an answer describe one state under concurrent
 * writes.
 */
export async function readStatusSnapshot(
  db: Kysely<LedgerSchema>,
  revision: number,
  branch: string | null,
  sha: string | undefined,
): Promise<StatusSnapshot> {
  let at = revision;
  for (;;) {
    const { projection } = await readStateAt(db, at);
    const read = await inReadSnapshot(db, async (tx) => {
      const clock = await readClock(tx);
      if (clock.generation !== projection.generation) return clock.revision;
      const [claims, sources, sourceIssues, waits, findings, verified] = await Promise.all([
        activeClaims(tx, branch),
        tx
          .selectFrom("sources")
          .select(["path", "fingerprint", "indexed_revision"])
          .orderBy("path")
          .execute(),
        missingSourceIssues(tx),
        pendingWaits(tx, branch),
        pendingFindings(tx),
        sha === undefined ? Promise.resolve(undefined) : verifiedAt(tx, sha, branch),
      ]);
      const revisions: BriefRevisions = {
        entities: projection.revisions,
        sources: new Map(sources.map((s) => [s.path, Number(s.indexed_revision)])),
      };
      return {
        revision: clock.revision,
        projection,
        claims,
        revisions,
        sources: sources.map(({ path, fingerprint }) => ({ path, fingerprint })),
        sourceIssues,
        waits,
        findings,
        verified,
      } satisfies StatusSnapshot;
    });
    if (typeof read !== "number") return read;
    at = read;
  }
}

const GUIDANCE = {
  current: {
    when: "Current work can be continued",
    basis: "Source structure, dependencies and the claims in force",
    next_action:
      "Prepare the work's context; continue in the session that owns it, or resume that session explicitly",
    recheck: "A source, ownership, wait or outcome change",
  },
  ready: {
    when: "Work is ready to claim",
    basis: "Readiness and the current source structure",
    next_action: "Prepare the required context, then start a session that claims the work",
    recheck: "A claim conflict, or a source or dependency change",
  },
  waiting: {
    when: "Work is waiting",
    basis: "Pending user waits and unfinished required dependencies",
    next_action: "Resolve what the work waits on before continuing it",
    recheck: "The user's reply, or the prerequisite's completion",
  },
  none: {
    when: "No actionable work in this selection",
    basis: "Current diagnostics and source status; history is not verified again here",
    next_action: "Inspect the cited gap or blocked work and fix its cause in the source",
    recheck: "A source correction or an explicit verification",
  },
} as const;

/**
 * awr_project_status view=action: the selected open work sorted into four queues (current,
 * ready, waiting, blocked), each shown up to LIMITS.statusQueueShown with its total and how many
 * are left out, beside the organisation gaps that concern the selection, completed work in
 * aggregate (`history`) and the project's pending runtime findings. Everything is read through
 * `db` (one read snapshot), so totals and entries agree. The queues are navigation: a claim,
 * fresh sources and required context are still checked by the operations that need them.
 * With `page`, that one queue lists the entries from `offset`, `page_size` of them, and `page`
 * says where the next page starts; without it the answer stays within
 * LIMITS.statusActionTokens o200k tokens (queues give up their last entries, counted as omitted).
 */
export async function actionStatus(
  db: Kysely<LedgerSchema>,
  project: { id: string; name: string },
  at: number,
  branch: string | null,
  input: ActionStatusInput,
  page?: StatusPageRequest,
): Promise<ActionStatusView> {
  const scope = scopeOf(input);
  const snapshot = await readStatusSnapshot(db, at, branch, input.source_sha);
  const { projection, revision, revisions, sourceIssues, waits, findings, verified } = snapshot;
  const works = projection.ofKind("work");
  const selected = selectWork(projection, scope);

  const summary = projection.derive(STATUS_SUMMARY);
  const gapsByKey = new Map<string, OrganisationGap[]>();
  for (const gap of summary.gaps) {
    const list = gapsByKey.get(gap.key) ?? [];
    list.push(gap);
    gapsByKey.set(gap.key, list);
  }
  const claimsByWork = new Map<string, ActiveClaim[]>();
  for (const claim of snapshot.claims) {
    claimsByWork.set(claim.work, [...(claimsByWork.get(claim.work) ?? []), claim]);
  }

  const counts: Record<string, number> = {};
  const queues: Record<StatusQueue, Entry[]> = { current: [], ready: [], waiting: [], blocked: [] };
  const relevant = new Set<string>(scope.work);
  for (const work of selected) {
    counts[work.status] = (counts[work.status] ?? 0) + 1;
    if (work.status === "completed" || work.status === "cancelled") continue;
    relevant.add(work.key);
    const codes = new Set<string>();
    let incomplete = 0;
    let missing = 0;
    for (const dep of projection.dependencies.get(work.key) ?? []) {
      relevant.add(dep.target);
      const target = projection.entity(dep.target);
      if (target === undefined) {
        if (dep.required) missing++;
        codes.add("unknown_dependency");
      } else if (target.status !== "completed") {
        if (dep.required) incomplete++;
        codes.add(
          dep.required ? "required_dependency_incomplete" : "optional_dependency_incomplete",
        );
      }
    }
    const gaps = gapsByKey.get(work.key) ?? [];
    const structural = gaps.some((g) => STRUCTURAL.has(g.gap)) || missing > 0;
    const claims = claimsByWork.get(work.key) ?? [];
    const workWaits = waits.get(work.key) ?? [];
    const entry: Entry = { work, codes: [], claims, extra: {} };
    const dependencyWait = incomplete > 0 && !structural;
    let queue: StatusQueue;
    if (work.status === "blocked" || work.status === "unknown" || structural) {
      queue = "blocked";
      entry.extra = {
        structural_codes: gaps.slice(0, LIMITS.statusQueueShown).map((g) => g.gap),
      };
    } else if (dependencyWait || workWaits.length > 0) {
      queue = "waiting";
      entry.extra = {
        wait_ids: workWaits.slice(0, LIMITS.statusQueueShown),
        wait_total: workWaits.length,
        execution_total: 0,
        executions: [],
        execution_basis: "this runtime records no executions; waits are the recorded user waits",
        next_action:
          workWaits.length > 0
            ? "Get the user's actual reply and record it (awr_session_reply) before continuing."
            : "Finish the incomplete required dependency first; recheck its source status.",
      };
    } else if (claims.length > 0 || work.status === "in_progress" || work.status === "claimed") {
      queue = "current";
      entry.extra = { ownership_required: true };
    } else if (work.status === "ready" && isUnblocked(projection, work.key)) {
      queue = "ready";
    } else {
      queue = "blocked";
      if (work.status !== "ready") codes.add("status_not_ready");
      entry.extra = {
        structural_codes: gaps.slice(0, LIMITS.statusQueueShown).map((g) => g.gap),
      };
    }
    entry.codes = [...codes].sort();
    queues[queue].push(entry);
  }

  const item = (entry: Entry): Item => {
    return {
      ...statusBrief(entry.work, revisions),
      codes: entry.codes,
      claims: entry.claims.map((c) => ({ session: c.session_id, agent: c.agent_id })),
      ...entry.extra,
    };
  };

  const relevantGoals = new Set<string>();
  for (const key of relevant) {
    const entity = projection.entity(key);
    const goal = entity === undefined ? null : stringOf(entity, "goal");
    if (goal !== null) relevantGoals.add(goal);
  }
  const gaps = summary.gaps.filter((g) => relevant.has(g.key) || relevantGoals.has(g.key));

  const completed = works.filter((w) => w.status === "completed");
  const sha = input.source_sha;
  const verifiedCompleted =
    verified === undefined ? 0 : completed.filter((w) => verified.has(w.key)).length;

  const open = works.length - completed.length - (summary.counts["cancelled"] ?? 0);
  const structuralGaps = summary.gaps.filter((g) => STRUCTURAL.has(g.gap)).length;
  const state =
    sourceIssues.length > 0
      ? "source_unreadable"
      : works.length === 0
        ? "needs_organization"
        : open === 0
          ? "completed"
          : structuralGaps > 0
            ? "needs_organization"
            : "ready";

  const shown: Record<StatusQueue, number> = {
    current: Math.min(queues.current.length, LIMITS.statusQueueShown),
    ready: Math.min(queues.ready.length, LIMITS.statusQueueShown),
    waiting: Math.min(queues.waiting.length, LIMITS.statusQueueShown),
    blocked: Math.min(queues.blocked.length, LIMITS.statusQueueShown),
  };
  let gapsShown = Math.min(gaps.length, LIMITS.statusQueueShown);
  const pageOffset = page?.offset ?? 0;
  const pageSize = page?.page_size ?? LIMITS.statusPage.default;

  const build = (): ActionStatusView => {
    const lists = Object.fromEntries(
      STATUS_QUEUES.map((q) => [
        q,
        page?.queue === q
          ? queues[q].slice(pageOffset, pageOffset + pageSize).map(item)
          : queues[q].slice(0, shown[q]).map(item),
      ]),
    ) as Record<StatusQueue, Item[]>;
    const focus = lists.current[0] ?? lists.ready[0] ?? null;
    const guidance =
      queues.current.length > 0
        ? GUIDANCE.current
        : queues.ready.length > 0
          ? GUIDANCE.ready
          : queues.waiting.length > 0
            ? GUIDANCE.waiting
            : GUIDANCE.none;
    const omitted = (q: StatusQueue) => queues[q].length - lists[q].length;
    return {
      view: "action",
      schema_version: 1,
      project: project.name,
      project_id: project.id,
      project_revision: revision,
      branch_id: branch,
      scope,
      scope_combination: "intersection",
      total: selected.length,
      project_work_total: works.length,
      counts: Object.fromEntries(Object.entries(counts).sort(([a], [b]) => (a < b ? -1 : 1))),
      count_basis:
        "source status; the queues are navigation, not permission to execute or proof of completion",
      current_total: queues.current.length,
      ready_count: queues.ready.length,
      waiting_count: queues.waiting.length,
      blocked_count: queues.blocked.length,
      current: lists.current,
      ready: lists.ready,
      waiting: lists.waiting,
      blocked: lists.blocked,
      suggested_work: focus,
      next_action:
        typeof focus?.["next_action"] === "string" && focus["next_action"] !== ""
          ? focus["next_action"]
          : guidance.next_action,
      guidance,
      ...(page === undefined
        ? {}
        : {
            page: {
              queue: page.queue,
              offset: pageOffset,
              page_size: pageSize,
              returned: lists[page.queue].length,
              total: queues[page.queue].length,
              next_offset:
                pageOffset + lists[page.queue].length < queues[page.queue].length
                  ? pageOffset + lists[page.queue].length
                  : null,
            },
          }),
      organization: {
        state,
        business_execution_ready: state === "ready",
        gaps: gaps
          .slice(0, gapsShown)
          .map((g) => ({ code: g.gap, target: g.key, detail: shortText(g.message) })),
        gap_sample_total: gaps.length,
        project_gap_total: summary.gaps.length,
        current_gap_total: summary.gaps.length,
      },
      history: {
        basis: "project-wide; the source's completion status as written",
        source_completed: completed.length,
        verified_completed: verifiedCompleted,
        not_checked: sha === undefined ? completed.length : 0,
        check_blocked: 0,
        verification_failed: sha === undefined ? 0 : completed.length - verifiedCompleted,
        user_confirmed_completed: 0,
        business_checked_completed: 0,
        gap_total: 0,
        source_sha: sha ?? null,
        next_action:
          "Inspect a completion's recorded evidence and its source SHA; the current HEAD is no proof of past work",
        details: ["work show KEY", "status --view full --source-sha SHA", "status --view full"],
      },
      pending_operations: {
        basis:
          "project-wide runtime findings (unknown request outcomes, pending waits); not unfinished work",
        total: findings.length,
        items: findings.slice(0, LIMITS.statusQueueShown),
        details: "operation list --outcome unknown",
      },
      omissions: {
        current: omitted("current"),
        ready: omitted("ready"),
        waiting: omitted("waiting"),
        blocked: omitted("blocked"),
        gaps: gaps.length - gapsShown,
        organization_scan_truncated: false,
        pending_operations: Math.max(0, findings.length - LIMITS.statusQueueShown),
        outside_scope: works.length - selected.length,
        not_evaluated: ["host-private receipts", "live process probes"],
        details: "status --view full; work show KEY; ready is the claim queue",
        ...(page === undefined ? { token_bound: LIMITS.statusActionTokens } : {}),
      },
      source_issues: sourceIssues as SourceIssue[],
      source_warnings: sourceIssues.filter((i) => i.severity === "warning").length,
    };
  };

  let answer = build();
  // Within the token bound: the fullest queue (then the gaps) gives up its last entry.
  while (page === undefined && countTokens(JSON.stringify(answer)) > LIMITS.statusActionTokens) {
    const fullest = [...STATUS_QUEUES].sort((a, b) => shown[b] - shown[a])[0] as StatusQueue;
    if (shown[fullest] > 1) shown[fullest]--;
    else if (gapsShown > 0) gapsShown--;
    else if (shown[fullest] > 0) shown[fullest]--;
    else break;
    answer = build();
  }
  return answer;
}
