import type { Kysely } from "kysely";
import { claimInForceSql } from "../claims/claim-in-force.js";
import { DOMAIN_EVENT_TYPES } from "../core/event-types.js";
import type {
  CallOptions,
  RuntimeCaller,
  RuntimeContext,
  WriteFields,
} from "../core/runtime-context.js";
import { LedgerError } from "../errors.js";
import type { EventRecord } from "../journal/operation-views.js";
import type { WriteReceipt } from "../journal/run-write.js";
import {
  branchIdOf,
  checkActorReason,
  MAIN,
  resolveActiveBranch,
  selectedBranchId,
} from "../runtime/branch-select.js";
import { runCheckedWrite } from "../runtime/checked-write.js";
import { pendingEvent } from "../runtime/pending-event.js";
import type { LedgerSchema } from "../storage/schema.js";

export interface BranchSwitchInput extends WriteFields {
  /** A branch name or id, or "main". */
  branch: string;
  actor: string;
  reason: string;
}

export interface BranchSwitchResult {
  project_id: string;
  selection: {
    previous_branch_id: string | null;
    current_branch_id: string | null;
    /** Active sessions that stay on the previous branch. */
    retained_active_sessions: number;
    /** Claims in force that stay on the previous branch. */
    retained_active_claims: number;
  };
  event: EventRecord;
  git_write_performed: false;
  source_write_performed: false;
}

/** Counts what stays behind on `branch` (null = main) when the selection moves away. */
async function retained(db: Kysely<LedgerSchema>, branch: string | null, nowMs: number) {
  const count = (table: "sessions" | "claims") =>
    db
      .selectFrom(table)
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .where((eb) => (branch === null ? eb("branch", "is", null) : eb("branch", "=", branch)));
  const sessions = await count("sessions").where("status", "=", "active").executeTakeFirst();
  const claims = await count("claims").where(claimInForceSql(nowMs)).executeTakeFirst();
  return { sessions: Number(sessions?.n ?? 0), claims: Number(claims?.n ?? 0) };
}

/**
 * `awr branch switch`: selects another active branch (or main) as the project's default.
 * Nothing moves: sessions, claims, checkpoints and evidence keep their branch. Selecting the
 * branch already selected is InvalidTransition.
 */
export async function branchSwitch(
  ctx: RuntimeContext,
  input: BranchSwitchInput,
  caller: RuntimeCaller,
  options?: CallOptions,
): Promise<BranchSwitchResult & WriteReceipt> {
  checkActorReason(input.actor, input.reason);
  const { projectId } = ctx.store;

  const check = async (db: Kysely<LedgerSchema>, nowMs: number) => {
    const target = await resolveActiveBranch(db, input.branch);
    const next = branchIdOf(target);
    const previous = await selectedBranchId(db);
    if (next === previous) {
      throw new LedgerError(
        "InvalidTransition",
        `work branch is already selected: ${target?.name ?? MAIN} is the current branch`,
        { branch: input.branch, current_branch_id: previous },
      );
    }
    return {
      next,
      name: target?.name ?? MAIN,
      previous,
      left: await retained(db, previous, nowMs),
    };
  };

  return runCheckedWrite(
    ctx,
    {
      input,
      caller,
      check,
      apply: async (unit, { next, name, previous, left }) => {
        await unit.tx
          .updateTable("project_state")
          .set({ current_branch_id: next })
          .where("project_id", "=", projectId)
          .execute();
        const selection = {
          previous_branch_id: previous,
          current_branch_id: next,
          retained_active_sessions: left.sessions,
          retained_active_claims: left.claims,
        };
        const { event, record } = pendingEvent(unit, caller, {
          type: DOMAIN_EVENT_TYPES.branchSwitched,
          branch: next,
          summary: `selected work branch ${name}`,
          payload: { ...selection, actor: input.actor, reason: input.reason },
        });
        return {
          result: {
            project_id: projectId,
            selection,
            event: record,
            git_write_performed: false as const,
            source_write_performed: false as const,
          },
          event,
        };
      },
    },
    options,
  );
}
