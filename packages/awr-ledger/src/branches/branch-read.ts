import type { Kysely } from "kysely";
import { DOMAIN_EVENT_TYPES } from "../core/event-types.js";
import { LIMITS } from "../core/limits.js";
import { BRANCH_STATUSES, type BranchStatus } from "../core/runtime-tables.js";
import { LedgerError } from "../errors.js";
import { MAIN, resolveBranch, selectedBranchId } from "../runtime/branch-select.js";
import { type BranchView, branchView } from "../runtime/branch-view.js";
import type { LedgerSchema } from "../storage/schema.js";
import { type BranchClosePlan, branchClosePlan } from "./branch-close-plan.js";

export interface BranchListInput {
  status?: BranchStatus | undefined;
  offset?: number | undefined;
  limit?: number | undefined;
}

export interface BranchListResult {
  project_id: string;
  project_revision: number;
  current_branch_id: string | null;
  branches: BranchView[];
  total: number;
  offset: number;
  limit: number;
  has_more: boolean;
  main: { name: "main"; branch_id: null; selected: boolean };
}

/** `awr branch list`: the branches by name then id, a page at a time, and main. */
export async function branchList(
  db: Kysely<LedgerSchema>,
  projectId: string,
  revision: number,
  input: BranchListInput,
): Promise<BranchListResult> {
  const offset = input.offset ?? 0;
  const limit = input.limit ?? LIMITS.branchList.default;
  if (input.status !== undefined && !BRANCH_STATUSES.includes(input.status)) {
    throw new LedgerError("InvalidInput", `status must be one of ${BRANCH_STATUSES.join(", ")}`, {
      field: "status",
    });
  }
  const status = input.status;
  const base = db
    .selectFrom("branches")
    .$if(status !== undefined, (q) => q.where("status", "=", status as string));
  const total = await base.select((eb) => eb.fn.countAll<number>().as("n")).executeTakeFirst();
  const rows = await base
    .selectAll()
    .orderBy("name")
    .orderBy("id")
    .offset(offset)
    .limit(limit)
    .execute();
  const current = await selectedBranchId(db);
  const count = Number(total?.n ?? 0);
  return {
    project_id: projectId,
    project_revision: revision,
    current_branch_id: current,
    branches: rows.map((row) => branchView(row, projectId)),
    total: count,
    offset,
    limit,
    has_more: offset + rows.length < count,
    main: { name: MAIN, branch_id: null, selected: current === null },
  };
}

export interface BranchShowResult {
  project_id: string;
  project_revision: number;
  current_branch_id: string | null;
  selected: boolean;
  name: string;
  branch_id: string | null;
  /** Null for main. */
  record: {
    branch: BranchView;
    git_binding: unknown;
    creation_event_id: string | null;
    closure: { event_id: string; project_revision: number; receipt: unknown } | null;
  } | null;
}

/** The receipt of `type` for a branch: its id and payload (the binding, the close receipt). */
async function receipt(db: Kysely<LedgerSchema>, branch: string, type: string) {
  const row = await db
    .selectFrom("events")
    .select(["id", "revision", "payload"])
    .where("branch", "=", branch)
    .where("type", "=", type)
    .orderBy("seq", "desc")
    .executeTakeFirst();
  if (row === undefined) return undefined;
  return {
    id: row.id,
    revision: Number(row.revision),
    payload: JSON.parse(row.payload) as Record<string, unknown>,
  };
}

/** `awr branch show [BRANCH]`: one branch (default: the selected one) with its records. */
export async function branchShow(
  db: Kysely<LedgerSchema>,
  projectId: string,
  revision: number,
  selector: string | undefined,
): Promise<BranchShowResult> {
  const row = await resolveBranch(db, selector);
  const current = await selectedBranchId(db);
  const id = row?.id ?? null;
  let record: BranchShowResult["record"] = null;
  if (row !== null) {
    const created = await receipt(db, row.id, DOMAIN_EVENT_TYPES.branchCreated);
    const closed = await receipt(db, row.id, DOMAIN_EVENT_TYPES.branchClosed);
    record = {
      branch: branchView(row, projectId),
      git_binding: created?.payload["git_binding"] ?? null,
      creation_event_id: created?.id ?? null,
      closure:
        closed === undefined
          ? null
          : {
              event_id: closed.id,
              project_revision: closed.revision,
              receipt: closed.payload["receipt"] ?? null,
            },
    };
  }
  return {
    project_id: projectId,
    project_revision: revision,
    current_branch_id: current,
    selected: current === id,
    name: row?.name ?? MAIN,
    branch_id: id,
    record,
  };
}

/** `awr branch show [BRANCH] --close-plan`: what must be settled before the branch can close. */
export async function branchClosePlanOf(
  db: Kysely<LedgerSchema>,
  projectId: string,
  revision: number,
  selector: string | undefined,
): Promise<BranchClosePlan> {
  const row = await resolveBranch(db, selector);
  if (row === null) {
    throw new LedgerError("InvalidInput", "main cannot close; select a work branch", {
      branch: MAIN,
    });
  }
  return branchClosePlan(db, row, projectId, revision, await selectedBranchId(db));
}
