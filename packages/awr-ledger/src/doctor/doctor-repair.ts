import type { Kysely } from "kysely";
import { claimInForce, claimLapsed, claimLapsedSql } from "../claims/claim-in-force.js";
import { releaseSessionClaims } from "../claims/claims.js";
import { DOMAIN_EVENT_TYPES } from "../core/event-types.js";
import type {
  CallOptions,
  RuntimeCaller,
  RuntimeContext,
  WriteFields,
} from "../core/runtime-context.js";
import type { ClaimTable, SessionTable } from "../core/runtime-tables.js";
import { LedgerError } from "../errors.js";
import type { CommitUnit, DomainEvent } from "../journal/operation-scope.js";
import type { EventRecord } from "../journal/operation-views.js";
import type { WriteReceipt } from "../journal/run-write.js";
import { type CheckedChange, runCheckedWrite } from "../runtime/checked-write.js";
import { pendingEvent } from "../runtime/pending-event.js";
import { inReadSnapshot } from "../storage/read-clock.js";
import type { LedgerSchema } from "../storage/schema.js";
import { inspectDatabase } from "./doctor-database.js";
import type { RepairAction } from "./doctor-finding.js";

/**
 * `awr doctor repair ACTION ID`: exactly one named repair of one object, as a checked write
 * (revision checked in the transaction, journaled with a request id, one revision spent). The
 * rule for the repair is decided again inside the commit, against the committed state and the
 * commit's clock (docs/design/work-branches.md, "awr doctor" and "Journal and replay").
 */

export const REPAIR_ACTIONS = [
  "expire_claim",
  "interrupt_session",
  "abandon_checkpoint",
  "clear_invalid_branch",
] as const;
export type RepairKind = (typeof REPAIR_ACTIONS)[number];

export interface DoctorRepairInput extends WriteFields {
  action: RepairKind;
  /** The claim, session, checkpoint save attempt or branch the repair acts on. */
  id: string;
  reason: string;
}

export interface DoctorRepairResult {
  repair_applied: true;
  read_only: false;
  source_refresh_performed: false;
  project_id: string;
  receipt: { action: RepairAction; event: EventRecord; project_revision: number };
  remaining_problems_evaluated: false;
  next_action: string;
}

/** Receipt types of the repairs that are not already domain events of their own. */
const SESSION_INTERRUPTED = "session.interrupted";
const BRANCH_CURRENT_CLEARED = "branch.current_cleared";

type Db = Kysely<LedgerSchema>;

function notExpired(claim: ClaimTable): LedgerError {
  return new LedgerError("InvalidTransition", `claim ${claim.id} is not an expired active claim`, {
    claim: claim.id,
    status: claim.status,
    expires_at: claim.expires_at === null ? null : Number(claim.expires_at),
    next:
      claim.status !== "active"
        ? `the claim is already ${claim.status}: there is nothing to repair`
        : claim.expires_at === null
          ? "a claim without a deadline ends only when its session releases it or ends (awr session end), or through awr doctor repair interrupt-session"
          : `the claim is in force until ${new Date(Number(claim.expires_at)).toISOString()}; repair it after that, or end its session (awr session end)`,
  });
}

async function expirableClaim(db: Db, id: string, nowMs: number): Promise<ClaimTable> {
  const claim = await db.selectFrom("claims").selectAll().where("id", "=", id).executeTakeFirst();
  if (claim === undefined) throw new LedgerError("NotFound", `claim ${id}`, { claim: id });
  if (claim.ended_at !== null || !claimLapsed(claim, nowMs)) throw notExpired(claim);
  return claim;
}

async function activeSession(db: Db, id: string): Promise<SessionTable> {
  const session = await db
    .selectFrom("sessions")
    .selectAll()
    .where("id", "=", id)
    .executeTakeFirst();
  if (session === undefined) throw new LedgerError("NotFound", `session ${id}`, { session: id });
  if (session.status !== "active") {
    throw new LedgerError("InvalidTransition", `session ${id} is ${session.status}`, {
      session: id,
      status: session.status,
    });
  }
  return session;
}

async function sessionExists(db: Db, id: string): Promise<boolean> {
  const row = await db.selectFrom("sessions").select("id").where("id", "=", id).executeTakeFirst();
  return row !== undefined;
}

/**
 * The selected branch may be cleared only when it is invalid: missing, closed, forked after the
 * revision the caller saw (`expected`), or naming a missing parent or
 * itself. Returns whether its row exists.
 */
async function invalidSelectedBranch(db: Db, id: string, expected: number): Promise<boolean> {
  const state = await db
    .selectFrom("project_state")
    .select("current_branch_id")
    .executeTakeFirstOrThrow();
  if (state.current_branch_id !== id) {
    throw new LedgerError("InvalidTransition", `branch ${id} is not the project's current branch`, {
      branch: id,
      current_branch_id: state.current_branch_id,
    });
  }
  const branch = await db
    .selectFrom("branches")
    .selectAll()
    .where("id", "=", id)
    .executeTakeFirst();
  if (branch === undefined) return false;
  const parent =
    branch.parent_branch_id === null
      ? undefined
      : await db
          .selectFrom("branches")
          .select("id")
          .where("id", "=", branch.parent_branch_id)
          .executeTakeFirst();
  const fork = Number(branch.fork_revision);
  const invalid =
    branch.status !== "active" ||
    fork < 0 ||
    fork > expected ||
    branch.parent_branch_id === id ||
    (branch.parent_branch_id !== null && parent === undefined);
  if (!invalid) {
    throw new LedgerError("InvalidTransition", `current branch ${id} is still valid`, {
      branch: id,
    });
  }
  return true;
}

type Checked =
  | { kind: "expire_claim"; claim: ClaimTable; owned: boolean }
  | { kind: "interrupt_session"; session: SessionTable }
  | { kind: "clear_invalid_branch"; branch: string; exists: boolean };

async function check(db: Db, input: DoctorRepairInput, nowMs: number): Promise<Checked> {
  switch (input.action) {
    case "expire_claim": {
      const claim = await expirableClaim(db, input.id, nowMs);
      return { kind: "expire_claim", claim, owned: await sessionExists(db, claim.session) };
    }
    case "interrupt_session":
      return { kind: "interrupt_session", session: await activeSession(db, input.id) };
    case "abandon_checkpoint":
      throw new LedgerError(
        "NotFound",
        `no unfinished checkpoint save attempt ${input.id}: checkpoints are saved in one transaction here`,
        { attempt: input.id },
      );
    case "clear_invalid_branch":
      return {
        kind: "clear_invalid_branch",
        branch: input.id,
        exists: await invalidSelectedBranch(db, input.id, input.expected_revision),
      };
  }
}

async function expire(
  unit: CommitUnit,
  claim: ClaimTable,
  owned: boolean,
  reason: string,
): Promise<{ action: RepairAction; event: DomainEvent }> {
  const updated = await unit.tx
    .updateTable("claims")
    .set({ status: "expired", ended_revision: unit.revision, ended_at: unit.time })
    .where("id", "=", claim.id)
    .where(claimLapsedSql(unit.nowMs))
    .executeTakeFirst();
  if (Number(updated.numUpdatedRows) !== 1) {
    throw new LedgerError("MutationConflict", `claim ${claim.id} changed during reconciliation`, {
      claim: claim.id,
    });
  }
  return {
    action: { kind: "expire_claim", claim_id: claim.id },
    event: {
      type: DOMAIN_EVENT_TYPES.claimExpired,
      work: claim.work,
      session: owned ? claim.session : null,
      branch: claim.branch,
      summary: `claim on ${claim.work} by session ${claim.session} expired (doctor repair)`,
      payload: {
        claim_id: claim.id,
        session_id: claim.session,
        expired_at: Number(claim.expires_at),
        reconciled_at: unit.nowMs,
        reason,
      },
    },
  };
}

async function interrupt(
  unit: CommitUnit,
  session: SessionTable,
  reason: string,
): Promise<{ action: RepairAction; event: DomainEvent }> {
  const active = await unit.tx
    .selectFrom("claims")
    .selectAll()
    .where("session", "=", session.id)
    .where("status", "=", "active")
    .orderBy("id")
    .execute();
  const expired = active.filter((c) => !claimInForce(c, unit.nowMs)).map((c) => c.id);
  const released = await releaseSessionClaims(
    unit,
    session.id,
    "session interrupted (doctor repair)",
  );
  const updated = await unit.tx
    .updateTable("sessions")
    .set({ status: "interrupted", end_revision: unit.revision, ended_at: unit.time })
    .where("id", "=", session.id)
    .where("status", "=", "active")
    .executeTakeFirst();
  if (Number(updated.numUpdatedRows) !== 1) {
    throw new LedgerError(
      "MutationConflict",
      `session ${session.id} changed during reconciliation`,
      { session: session.id },
    );
  }
  return {
    action: { kind: "interrupt_session", session_id: session.id },
    event: {
      type: SESSION_INTERRUPTED,
      work: session.work,
      session: session.id,
      branch: session.branch,
      summary: `session interrupted (doctor repair)`,
      payload: {
        session_id: session.id,
        status: "interrupted",
        expired_claim_ids: expired,
        released_claim_ids: released.map((c) => c.id).sort(),
        last_checkpoint_id: session.last_checkpoint,
        reconciled_at: unit.nowMs,
        reason,
      },
    },
  };
}

async function clearBranch(
  unit: CommitUnit,
  branch: string,
  exists: boolean,
  reason: string,
): Promise<{ action: RepairAction; event: DomainEvent }> {
  const updated = await unit.tx
    .updateTable("project_state")
    .set({ current_branch_id: null })
    .where("current_branch_id", "=", branch)
    .executeTakeFirst();
  if (Number(updated.numUpdatedRows) !== 1) {
    throw new LedgerError(
      "MutationConflict",
      `current branch ${branch} changed during reconciliation`,
      { branch },
    );
  }
  return {
    action: { kind: "clear_invalid_branch", branch_id: branch },
    event: {
      type: BRANCH_CURRENT_CLEARED,
      branch: exists ? branch : null,
      summary: "the selected branch was invalid; main is selected again (doctor repair)",
      payload: { branch_id: branch, current_branch_id: null, reason },
    },
  };
}

/** A repair needs an intact database at the current schema: the doctor's database check. */
async function requireIntactDatabase(ctx: RuntimeContext): Promise<void> {
  const report = await inReadSnapshot(ctx.store.db, (db) => inspectDatabase(db, ctx.store.dialect));
  if (!report.ok) {
    throw new LedgerError(
      "Storage",
      "repair requires an intact current database; no migration was attempted",
      { integrity: report.integrity, schema_issues: report.schema_issues },
    );
  }
}

export async function doctorRepair(
  ctx: RuntimeContext,
  input: DoctorRepairInput,
  caller: RuntimeCaller,
  options?: CallOptions,
): Promise<DoctorRepairResult & WriteReceipt> {
  const reason = input.reason.trim();
  if (reason === "") {
    throw new LedgerError("InvalidInput", "reconciliation reason must not be empty", {
      field: "reason",
    });
  }
  await requireIntactDatabase(ctx);
  return runCheckedWrite(
    ctx,
    {
      input,
      caller,
      check: (db, nowMs) => check(db, input, nowMs),
      apply: async (unit, checked): Promise<CheckedChange<DoctorRepairResult>> => {
        const { action, event } =
          checked.kind === "expire_claim"
            ? await expire(unit, checked.claim, checked.owned, reason)
            : checked.kind === "interrupt_session"
              ? await interrupt(unit, checked.session, reason)
              : await clearBranch(unit, checked.branch, checked.exists, reason);
        const { event: receipt, record } = pendingEvent(unit, caller, event);
        return {
          result: {
            repair_applied: true,
            read_only: false,
            source_refresh_performed: false,
            project_id: ctx.store.projectId,
            receipt: { action, event: record, project_revision: unit.revision },
            remaining_problems_evaluated: false,
            next_action: "Run doctor to inspect remaining findings.",
          },
          event: receipt,
        };
      },
    },
    options,
  );
}
