import type { Kysely } from "kysely";
import { DOMAIN_EVENT_TYPES } from "../core/event-types.js";
import type {
  CallOptions,
  RuntimeCaller,
  RuntimeContext,
  WriteFields,
} from "../core/runtime-context.js";
import { LedgerError } from "../errors.js";
import { ulid } from "../internal/ulid.js";
import type { EventRecord } from "../journal/operation-views.js";
import type { WriteReceipt } from "../journal/run-write.js";
import {
  branchIdOf,
  checkActorReason,
  MAIN,
  resolveActiveBranch,
  resolveBranch,
  selectedBranchId,
} from "../runtime/branch-select.js";
import { type BranchView, branchView } from "../runtime/branch-view.js";
import { runCheckedWrite } from "../runtime/checked-write.js";
import { pendingEvent } from "../runtime/pending-event.js";
import type { LedgerSchema } from "../storage/schema.js";
import { checkCloseInput, observeMerge } from "./branch-close-input.js";
import { branchClosePlan } from "./branch-close-plan.js";

export interface BranchCloseInput extends WriteFields {
  branch: string;
  /** The close input file's content (version, outcome, summary, merge, open_loops). */
  input: unknown;
  /** Where the selection moves if the closed branch was selected; default main. */
  into?: string | undefined;
  actor: string;
  reason: string;
}

export interface BranchCloseResult {
  branch: BranchView;
  receipt: Record<string, unknown>;
  event: EventRecord;
  source_write_performed: false;
  git_write_performed: false;
}

const TERMINAL_WORK = ["completed", "cancelled"];

/**
 * `awr branch close`: records a merge or an abandonment and closes the branch for good
 * (docs/design/work-branches.md R5). Refused while anything runs on it, without exactly one
 * disposition per open loop, or with merge evidence that does not check out. In one commit:
 * the summary receipt, one `branch.loop_carried` per carried loop (on the target branch), the
 * selection moved to `into` when the closed branch was selected, and `branch.closed`.
 */
export async function branchClose(
  ctx: RuntimeContext,
  input: BranchCloseInput,
  caller: RuntimeCaller,
  options?: CallOptions,
): Promise<BranchCloseResult & WriteReceipt> {
  checkActorReason(input.actor, input.reason);
  const close = checkCloseInput(input.input);
  const root = ctx.root ?? process.cwd();
  const merge = close.merge === null ? null : await observeMerge(root, close.merge, ctx.now());
  const { projectId } = ctx.store;

  const check = async (db: Kysely<LedgerSchema>) => {
    const row = await resolveBranch(db, input.branch);
    if (row === null) {
      throw new LedgerError("InvalidInput", "main cannot close; select a work branch", {
        branch: MAIN,
      });
    }
    if (row.status !== "active") {
      throw new LedgerError(
        "InvalidTransition",
        `work branch ${row.name} is already ${row.status}`,
        {
          branch: row.id,
          status: row.status,
        },
      );
    }
    const target = branchIdOf(await resolveActiveBranch(db, input.into ?? MAIN));
    if (target === row.id) {
      throw new LedgerError("InvalidInput", `work branch ${row.name} cannot close into itself`, {
        field: "into",
      });
    }
    const current = await selectedBranchId(db);
    const plan = await branchClosePlan(db, row, projectId, 0, current);
    if (plan.blockers.length > 0) {
      throw new LedgerError("InvalidTransition", plan.blockers.join("; "), {
        branch: row.id,
        blockers: plan.blockers,
      });
    }
    const key = (checkpoint: string, index: number) => `${checkpoint}#${index}`;
    const given = new Map<string, (typeof close.open_loops)[number]>();
    for (const item of close.open_loops) {
      const k = key(item.checkpoint_id, item.index);
      const loop = plan.open_loops.find((l) => key(l.checkpoint_id, l.index) === k);
      if (loop === undefined || given.has(k)) {
        throw new LedgerError(
          "InvalidInput",
          `open loop ${k} is ${loop === undefined ? "not an open loop of this branch" : "disposed of twice"}; give exactly one disposition per loop the close plan lists (awr branch show ${row.name} --close-plan)`,
          { open_loop: k },
        );
      }
      if (loop.text !== item.text) {
        throw new LedgerError(
          "SourceConflict",
          `open loop ${k} reads "${loop.text}", not "${item.text}"; copy the loop's exact text from the close plan`,
          { open_loop: k },
        );
      }
      given.set(k, item);
    }
    const missing = plan.open_loops.filter((l) => !given.has(key(l.checkpoint_id, l.index)));
    if (missing.length > 0) {
      throw new LedgerError(
        "InvalidInput",
        `every open loop needs a disposition; missing: ${missing.map((l) => key(l.checkpoint_id, l.index)).join(", ")}`,
        { missing: missing.map((l) => key(l.checkpoint_id, l.index)) },
      );
    }
    for (const item of close.open_loops) {
      if (item.resolution.outcome !== "carry_forward") continue;
      const work = await db
        .selectFrom("entities")
        .select(["key", "status"])
        .where("kind", "=", "work")
        .where("key", "=", item.resolution.work_item_key)
        .executeTakeFirst();
      if (work === undefined || TERMINAL_WORK.includes(work.status)) {
        throw new LedgerError(
          "InvalidInput",
          `a loop carries forward only to a current, open work item; ${item.resolution.work_item_key} is ${work?.status ?? "not in the ledger"}`,
          { work: item.resolution.work_item_key },
        );
      }
    }
    const sources = await db.selectFrom("sources").selectAll().orderBy("path").execute();
    return { row, target, current, plan, sources };
  };

  return runCheckedWrite(
    ctx,
    {
      input,
      caller,
      check,
      apply: async (unit, { row, target, current, plan, sources }) => {
        await unit.tx
          .updateTable("branches")
          .set({
            status: close.outcome,
            revision: Number(row.revision) + 1,
            closed_revision: unit.revision,
            closed_at: unit.time,
          })
          .where("id", "=", row.id)
          .execute();
        const closed = { ...row, status: close.outcome, revision: Number(row.revision) + 1 };
        const summaryEventId = ulid();
        await unit.event({
          id: summaryEventId,
          type:
            close.outcome === "merged"
              ? DOMAIN_EVENT_TYPES.branchMerged
              : DOMAIN_EVENT_TYPES.branchAbandoned,
          branch: row.id,
          summary: close.summary,
          payload: { branch_id: row.id, outcome: close.outcome, merge },
        });
        const loops = [];
        for (const item of close.open_loops) {
          const original = plan.open_loops.find(
            (l) => l.checkpoint_id === item.checkpoint_id && l.index === item.index,
          );
          let carried: string | null = null;
          if (item.resolution.outcome === "carry_forward") {
            const stored = await unit.event({
              type: DOMAIN_EVENT_TYPES.branchLoopCarried,
              branch: target,
              work: item.resolution.work_item_key,
              summary: `open loop carried from branch ${row.name}: ${item.text}`,
              payload: { from_branch_id: row.id, original, resolution: item.resolution },
            });
            carried = stored.id;
          }
          loops.push({
            original,
            resolution: item.resolution,
            carried_to:
              item.resolution.outcome === "carry_forward"
                ? { work_item_key: item.resolution.work_item_key }
                : null,
            carry_event_id: carried,
          });
        }
        const next = current === row.id ? target : current;
        if (next !== current) {
          await unit.tx
            .updateTable("project_state")
            .set({ current_branch_id: next })
            .where("project_id", "=", projectId)
            .execute();
        }
        const receipt = {
          version: 1,
          branch_id: row.id,
          branch_revision: closed.revision,
          outcome: close.outcome,
          target_branch_id: target,
          actor: input.actor,
          reason: input.reason,
          summary: close.summary,
          source_project_revision: input.expected_revision,
          source_versions: sources.map((s) => ({
            source_id: s.path,
            revision: Number(s.indexed_revision),
            fingerprint: s.fingerprint,
            locator: s.path,
          })),
          merge,
          open_loops: loops,
          retained_session_ids: plan.sessions.map((s) => s.id),
          previous_branch_id: current,
          current_branch_id: next,
          summary_event_id: summaryEventId,
        };
        const { event, record } = pendingEvent(unit, caller, {
          type: DOMAIN_EVENT_TYPES.branchClosed,
          branch: row.id,
          summary: `work branch ${row.name} closed as ${close.outcome}`,
          payload: { receipt },
        });
        return {
          result: {
            branch: branchView(closed, projectId),
            receipt,
            event: record,
            source_write_performed: false as const,
            git_write_performed: false as const,
          },
          event,
        };
      },
    },
    options,
  );
}
