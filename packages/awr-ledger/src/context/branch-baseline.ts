import type { Kysely } from "kysely";
import { DOMAIN_EVENT_TYPES } from "../core/event-types.js";
import type { BranchTable } from "../core/runtime-tables.js";
import { LedgerError } from "../errors.js";
import { MAIN, resolveBranch } from "../runtime/branch-select.js";
import type { CheckpointView } from "../runtime/runtime-views.js";
import type { LedgerSchema } from "../storage/schema.js";

/**
 * Which branch a context packet is compiled on, and from which baseline
 * (docs/design/work-branches.md R8). An explicit `branch` (a name, an id or "main") compiles
 * that branch's runtime delta since its fork; omitted or null compiles the selected default
 * with the ordinary baseline (the session's checkpoint, or `checkpoint`/`after_revision`).
 */
export interface ContextBranch {
  /** Null = main. */
  id: string | null;
  row: BranchTable | null;
  /** The fork baseline applies (an explicit branch). */
  fork: boolean;
}

export async function contextBranch(
  db: Kysely<LedgerSchema>,
  input: {
    branch?: string | null | undefined;
    ordinaryBranch?: string | undefined;
    checkpoint?: string;
    after_revision?: number;
  },
  revision: number,
): Promise<ContextBranch> {
  const explicit = input.branch !== undefined && input.branch !== null;
  if (explicit && (input.checkpoint !== undefined || input.after_revision !== undefined)) {
    throw new LedgerError(
      "InvalidInput",
      "named branch context/delta uses the fork baseline; use context compile/delta for a checkpoint or revision baseline",
      { field: input.checkpoint !== undefined ? "checkpoint" : "after_revision" },
    );
  }
  if (explicit && input.ordinaryBranch !== undefined) {
    throw new LedgerError(
      "InvalidInput",
      "give the branch once: the branch argument compiles the changes since its fork, --branch compiles from the ordinary baseline",
      { field: "branch" },
    );
  }
  if (input.ordinaryBranch !== undefined) await requireBranchId(db, input.ordinaryBranch);
  const row = await resolveBranch(db, input.ordinaryBranch ?? input.branch);
  if (row !== null) {
    if (row.status !== "active") {
      throw new LedgerError(
        "InvalidTransition",
        `execution context requires an active branch: ${row.name} is ${row.status}; its history stays readable with awr work history and awr event history`,
        { branch: row.id, status: row.status },
      );
    }
    if (Number(row.fork_revision) > revision || row.parent_branch_id === row.id) {
      throw new LedgerError(
        "InvalidInput",
        `work branch ${row.name} is invalid (fork revision ${Number(row.fork_revision)}, parent ${row.parent_branch_id ?? "main"}); run awr doctor`,
        { branch: row.id },
      );
    }
  }
  return { id: row?.id ?? null, row, fork: explicit };
}

/**
 * `context compile --branch` takes a branch id (or "main"); a name is
 * refused with the command that takes names.
 */
async function requireBranchId(db: Kysely<LedgerSchema>, selector: string): Promise<void> {
  if (selector === MAIN) return;
  const byId = await db
    .selectFrom("branches")
    .select("id")
    .where("id", "=", selector)
    .executeTakeFirst();
  if (byId !== undefined) return;
  const byName = await db
    .selectFrom("branches")
    .select("id")
    .where("name", "=", selector)
    .executeTakeFirst();
  if (byName !== undefined) {
    throw new LedgerError(
      "InvalidInput",
      `context compile --branch takes a branch id; ${selector} is a name (id ${byName.id}): pass the id, or run awr branch context ${selector} for the changes since its fork`,
      { branch: selector },
    );
  }
}

/** The fork baseline of an explicit branch: after its fork, or from 0 for an explicit main. */
export function forkBaseline(branch: ContextBranch): [number, string] {
  return branch.row === null
    ? [0, "main_project_start"]
    : [Number(branch.row.fork_revision), "branch_fork"];
}

/**
 * The ordinary baseline on a selected branch: a checkpoint of another branch, or a baseline
 * before the branch's fork, is InvalidInput.
 */
export function checkOrdinaryBaseline(
  branch: ContextBranch,
  checkpoint: CheckpointView | null,
  explicitCheckpoint: boolean,
  afterRevision: number,
  explicitBaseline: boolean,
): void {
  if (explicitCheckpoint && checkpoint !== null && checkpoint.branch_id !== branch.id) {
    throw new LedgerError(
      "InvalidInput",
      `checkpoint ${checkpoint.id} belongs to another branch than the one compiled (${branch.row?.name ?? "main"})`,
      { checkpoint: checkpoint.id, branch_id: branch.id },
    );
  }
  if (explicitBaseline && branch.row !== null && afterRevision < Number(branch.row.fork_revision)) {
    throw new LedgerError(
      "InvalidInput",
      `delta baseline precedes branch fork: revision ${afterRevision} is before ${branch.row.name}'s fork at ${Number(branch.row.fork_revision)}`,
      { after_revision: afterRevision, fork_project_revision: Number(branch.row.fork_revision) },
    );
  }
}

/** `completeness.branch_context` for an explicit branch (docs/compatibility/context.md). */
export async function branchContextFacts(
  db: Kysely<LedgerSchema>,
  branch: ContextBranch,
): Promise<Record<string, unknown>> {
  const row = branch.row;
  if (row === null) {
    return {
      branch_id: null,
      name: "main",
      parent_branch_id: null,
      branch_revision: null,
      fork_project_revision: 0,
      creation_event_id: null,
      git_ref: null,
      git_binding: null,
      source_basis: "shared_current_sources",
      runtime_scope: "exact_branch",
    };
  }
  const created = await db
    .selectFrom("events")
    .select(["id", "payload"])
    .where("branch", "=", row.id)
    .where("type", "=", DOMAIN_EVENT_TYPES.branchCreated)
    .executeTakeFirst();
  const payload =
    created === undefined ? {} : (JSON.parse(created.payload) as Record<string, unknown>);
  return {
    branch_id: row.id,
    name: row.name,
    parent_branch_id: row.parent_branch_id,
    branch_revision: Number(row.revision),
    fork_project_revision: Number(row.fork_revision),
    creation_event_id: created?.id ?? null,
    git_ref: row.git_ref,
    git_binding: payload["git_binding"] ?? null,
    source_basis: "shared_current_sources",
    runtime_scope: "exact_branch",
  };
}

/** The `branch-context` chunk's text: what the packet's runtime facts are scoped to. */
export function branchContextText(facts: Record<string, unknown>): string {
  const fork = String(facts["fork_project_revision"]);
  return [
    `Branch: ${String(facts["name"])} (${String(facts["branch_id"] ?? "main baseline")}) revision ${String(facts["branch_revision"] ?? "-")}, fork r${fork}, parent ${String(facts["parent_branch_id"] ?? "main")}, git ref at creation ${String(facts["git_ref"] ?? "none")}.`,
    "Sources are the shared current ones, not a snapshot of the fork; sessions, claims, checkpoints, evidence and events are this branch's only.",
  ].join("\n");
}
