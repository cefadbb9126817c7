import type { Kysely } from "kysely";
import { LIMITS } from "../core/limits.js";
import { STATUS_SUMMARY } from "../read/status-summary.js";
import type { LedgerSchema } from "../storage/schema.js";
import { guidanceFor } from "./status-guidance.js";
import { type Item, sortedCounts, sourceIssueFields, statusHeader } from "./status-header.js";
import {
  historyFields,
  organisationFields,
  organisationState,
  relevantGaps,
} from "./status-organisation.js";
import { pageFields, pageWindow, queueLists, type StatusPageRequest } from "./status-paging.js";
import { buildQueues } from "./status-queue-build.js";
import type { StatusQueue } from "./status-queues.js";
import { type ActionStatusInput, scopeOf, selectWork } from "./status-scope.js";
import { readStatusSnapshot } from "./status-snapshot.js";
import { type ShownCounts, withinTokenBound } from "./status-token-bound.js";

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
  const { counts, queues, relevant } = buildQueues(
    projection,
    selected,
    scope.work,
    summary.gaps,
    snapshot.claims,
    waits,
  );
  const gaps = relevantGaps(projection, summary.gaps, relevant);
  const state = organisationState(works, summary, sourceIssues);
  const guidance = guidanceFor(queues);
  const window = page === undefined ? undefined : pageWindow(page);

  const shownOf = (q: StatusQueue) => Math.min(queues[q].length, LIMITS.statusQueueShown);
  const shown: ShownCounts = {
    queues: {
      current: shownOf("current"),
      ready: shownOf("ready"),
      waiting: shownOf("waiting"),
      blocked: shownOf("blocked"),
    },
    gaps: Math.min(gaps.length, LIMITS.statusQueueShown),
  };

  const build = (): ActionStatusView => {
    const lists = queueLists(queues, shown.queues, window, revisions);
    const focus = lists.current[0] ?? lists.ready[0] ?? null;
    const omitted = (q: StatusQueue) => queues[q].length - lists[q].length;
    return {
      ...statusHeader({ view: "action", project, revision, branch, scope, total: selected.length }),
      project_work_total: works.length,
      counts: sortedCounts(counts),
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
      ...(window === undefined
        ? {}
        : {
            page: pageFields(window, lists[window.queue].length, queues[window.queue].length),
          }),
      organization: organisationFields(state, gaps, shown.gaps, summary.gaps.length),
      history: historyFields(works, verified, input.source_sha),
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
        gaps: gaps.length - shown.gaps,
        organization_scan_truncated: false,
        pending_operations: Math.max(0, findings.length - LIMITS.statusQueueShown),
        outside_scope: works.length - selected.length,
        not_evaluated: ["host-private receipts", "live process probes"],
        details: "status --view full; work show KEY; ready is the claim queue",
        ...(page === undefined ? { token_bound: LIMITS.statusActionTokens } : {}),
      },
      ...sourceIssueFields(sourceIssues),
    };
  };

  // A page answers its window whole; without one the answer keeps within the token bound.
  return page === undefined ? withinTokenBound(shown, build) : build();
}
