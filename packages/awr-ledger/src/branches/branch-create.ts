import type { Kysely } from "kysely";
import { DOMAIN_EVENT_TYPES } from "../core/event-types.js";
import type {
  CallOptions,
  RuntimeCaller,
  RuntimeContext,
  WriteFields,
} from "../core/runtime-context.js";
import type { BranchTable } from "../core/runtime-tables.js";
import { LedgerError } from "../errors.js";
import { ulid } from "../internal/ulid.js";
import type { EventRecord } from "../journal/operation-views.js";
import type { WriteReceipt } from "../journal/run-write.js";
import {
  branchIdOf,
  checkActorReason,
  checkBranchName,
  checkGitRef,
  resolveActiveBranch,
  selectedBranchId,
} from "../runtime/branch-select.js";
import { type BranchView, branchView } from "../runtime/branch-view.js";
import { runCheckedWrite } from "../runtime/checked-write.js";
import { pendingEvent } from "../runtime/pending-event.js";
import type { LedgerSchema } from "../storage/schema.js";
import { type GitBinding, observeGitRef } from "./git-ref.js";

export interface BranchCreateInput extends WriteFields {
  name: string;
  /** Omitted: the selected default; "main" explicit. A record only: nothing is inherited. */
  parent?: string | undefined;
  git_ref?: string | undefined;
  actor: string;
  reason: string;
}

export interface BranchCreateResult {
  project_id: string;
  /** Unchanged: creating a branch does not select it. */
  current_branch_id: string | null;
  branch: BranchView;
  git_binding: GitBinding | null;
  event: EventRecord;
  git_write_performed: false;
  source_write_performed: false;
}

/**
 * `awr branch create`: a new active branch forking at the caller's expected_revision (the state
 * they saw). The selection does not change. A Git ref is observed read-only before the write and
 * recorded in the `branch.created` receipt.
 */
export async function branchCreate(
  ctx: RuntimeContext,
  input: BranchCreateInput,
  caller: RuntimeCaller,
  options?: CallOptions,
): Promise<BranchCreateResult & WriteReceipt> {
  checkBranchName(input.name);
  checkActorReason(input.actor, input.reason);
  if (input.git_ref !== undefined) checkGitRef(input.git_ref);
  const binding =
    input.git_ref === undefined
      ? null
      : await observeGitRef(ctx.root ?? process.cwd(), input.git_ref, ctx.now());
  const { projectId } = ctx.store;

  const check = async (db: Kysely<LedgerSchema>) => {
    const taken = await db
      .selectFrom("branches")
      .select("id")
      .where((eb) => eb.or([eb("name", "=", input.name), eb("id", "=", input.name)]))
      .executeTakeFirst();
    if (taken !== undefined) {
      throw new LedgerError(
        "InvalidInput",
        `work branch ${input.name} already exists (${taken.id}); choose another name`,
        { field: "name", branch: taken.id },
      );
    }
    const parent = branchIdOf(await resolveActiveBranch(db, input.parent));
    return { parent, current: await selectedBranchId(db) };
  };

  return runCheckedWrite(
    ctx,
    {
      input,
      caller,
      check,
      apply: async (unit, { parent, current }) => {
        const row: BranchTable = {
          id: ulid(),
          name: input.name,
          parent_branch_id: parent,
          git_ref: input.git_ref ?? null,
          fork_revision: input.expected_revision,
          status: "active",
          revision: 1,
          created_revision: unit.revision,
          created_at: unit.time,
          closed_revision: null,
          closed_at: null,
        };
        await unit.tx.insertInto("branches").values(row).execute();
        const branch = branchView(row, projectId);
        const { event, record } = pendingEvent(unit, caller, {
          type: DOMAIN_EVENT_TYPES.branchCreated,
          branch: row.id,
          summary: `work branch ${row.name} created (fork revision ${row.fork_revision})`,
          payload: {
            branch,
            git_binding: binding,
            actor: input.actor,
            reason: input.reason,
          },
        });
        return {
          result: {
            project_id: projectId,
            current_branch_id: current,
            branch,
            git_binding: binding,
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
