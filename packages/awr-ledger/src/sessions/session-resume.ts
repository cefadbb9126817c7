import type { Kysely } from "kysely";
import { type ClaimView, claimView } from "../claims/claim-view.js";
import {
  inheritClaims,
  planClaimInheritance,
  type ResumeClaimMode,
} from "../claims/resume-claims.js";
import { DOMAIN_EVENT_TYPES } from "../core/event-types.js";
import type {
  CallOptions,
  RuntimeCaller,
  RuntimeContext,
  WriteFields,
} from "../core/runtime-context.js";
import type { SessionTable } from "../core/runtime-tables.js";
import { LedgerError } from "../errors.js";
import { ulid } from "../internal/ulid.js";
import type { WriteReceipt } from "../journal/run-write.js";
import {
  activeBranchById,
  MAIN,
  resolveBranch,
  selectedBranchId,
} from "../runtime/branch-select.js";
import { runCheckedWrite } from "../runtime/checked-write.js";
import {
  activeBinding,
  pendingWait,
  resolveSession,
  waitBlocksError,
} from "../runtime/runtime-lookup.js";
import {
  type SessionView,
  sessionView,
  type WaitView,
  waitView,
} from "../runtime/runtime-views.js";
import { redactSecretStrings } from "../secrets/index.js";
import type { LedgerSchema } from "../storage/schema.js";
import { type CheckpointSave, checkpointSave } from "./checkpoint-delta.js";
import { recoveryCheckpointId, recoveryRevision } from "./recovery-checkpoint.js";

export interface SessionResumeInput extends WriteFields {
  /** The predecessor's id. */
  session: string;
  /** The conversation the successor binds (the predecessor's own, or a new one). */
  conversation: string;
  agent: string;
  provider: string;
  model: string;
  /** inherit (default): keep the predecessor's claim; acquire: claim the work anew; none. */
  claim?: ResumeClaimMode | undefined;
  /** The lifetime of a claim taken with `claim: acquire`. */
  ttl_ms?: number | undefined;
  // The successor's context packet (compiled after the resume, as awr_context_compile would).
  budget?: number | undefined;
  paths?: string[] | undefined;
  tags?: string[] | undefined;
  goals?: string[] | undefined;
  source_sha?: string | undefined;
}

export interface SessionResumeResult {
  /**
   * The successor and the claim it holds (null when it holds none), the predecessor as the
   * resume left it (`interrupted` when it was active), and the ids of the predecessor's claims
   * the resume closed (handed over, released or expired), sorted.
   */
  resumed: {
    session: SessionView;
    claim: ClaimView | null;
    from_session: SessionView;
    closed_claim_ids: string[];
  };
  from_session_id: string;
  predecessor: SessionView;
  /**
   * The checkpoint the successor continues from: the predecessor's last, or the one the
   * predecessor itself inherited. The successor's own `last_checkpoint_id` stays null.
   */
  checkpoint_id: string | null;
  /** `checkpoint`, or `source_and_session_start` when the predecessor left no checkpoint. */
  recovery_basis: "checkpoint" | "source_and_session_start";
  /** What the successor cannot recover (no checkpoint, or one saved without its delta). */
  recovery_gaps: string[];
  /** What the inherited checkpoint saved (checkpoint-delta.ts); null without a checkpoint. */
  checkpoint_save: CheckpointSave | null;
  /**
   * The baseline of the successor's delta: the checkpoint's revision, else the revision the
   * predecessor recovered from or started at.
   */
  recovery_after_revision: number;
  /** Claims the successor took over or acquired. */
  claims: ClaimView[];
  /** The predecessor's waits, oldest first: what it asked and what the user answered. */
  predecessor_waits: WaitView[];
}

/**
 * awr_session_resume: creates a successor session that continues the predecessor's work from its
 * last checkpoint and binds `conversation` to it. Claims follow `claim` (see resume-claims.ts);
 * another session holding the work is ClaimConflict naming the holder, and nothing changes. An
 * active predecessor becomes `interrupted`. Refused while the predecessor has a pending wait,
 * and for a predecessor that already has a successor.
 */
export async function sessionResume(
  ctx: RuntimeContext,
  input: SessionResumeInput,
  caller: RuntimeCaller,
  options?: CallOptions,
): Promise<SessionResumeResult & WriteReceipt> {
  const mode = input.claim ?? "inherit";
  if (input.ttl_ms !== undefined && mode !== "acquire") {
    throw new LedgerError("InvalidInput", "ttl_ms applies to claim: acquire", { field: "ttl_ms" });
  }
  const { conversation } = input;

  const check = async (db: Kysely<LedgerSchema>, nowMs: number) => {
    const predecessor = await resolveSession(db, caller, { session: input.session });
    const wait = await pendingWait(db, predecessor.id);
    if (wait !== undefined) throw waitBlocksError(wait, `resuming session ${predecessor.id}`);
    if (predecessor.successor !== null) {
      throw new LedgerError(
        "InvalidTransition",
        `session ${predecessor.id} was already resumed by session ${predecessor.successor}; resume that one instead`,
        { session: predecessor.id, successor: predecessor.successor },
      );
    }
    // R10: the successor runs on the predecessor's branch, which must be the selected default.
    const selected = await selectedBranchId(db);
    if (selected !== (predecessor.branch ?? null)) {
      const name =
        predecessor.branch === null
          ? MAIN
          : ((await resolveBranch(db, predecessor.branch))?.name ?? predecessor.branch);
      throw new LedgerError(
        "InvalidInput",
        `resume requires the current project branch to be the session's: session ${predecessor.id} ran on ${name}; run \`awr branch switch ${name}\` first`,
        { session: predecessor.id, branch_id: predecessor.branch, current_branch_id: selected },
      );
    }
    await activeBranchById(db, predecessor.branch);
    const bound = await activeBinding(db, caller.client, conversation);
    if (bound !== undefined && bound.id !== predecessor.id) {
      throw new LedgerError(
        "SourceConflict",
        `conversation "${conversation}" is already bound to active session ${bound.id}`,
        { conversation, session: bound.id },
      );
    }
    const inheritance = await planClaimInheritance(db, predecessor, mode, nowMs);
    const checkpoint = await recoveryCheckpointId(db, predecessor);
    const saved = checkpoint === null ? null : await checkpointSave(db, checkpoint);
    const savedRevision =
      checkpoint === null
        ? undefined
        : await db
            .selectFrom("checkpoints")
            .select("revision")
            .where("id", "=", checkpoint)
            .executeTakeFirst();
    const recoveryAfter =
      savedRevision === undefined
        ? await recoveryRevision(db, predecessor)
        : Number(savedRevision.revision);
    return { predecessor, inheritance, checkpoint, saved, recoveryAfter };
  };

  return runCheckedWrite(
    ctx,
    {
      input,
      caller,
      check,
      apply: async (unit, { predecessor, inheritance, checkpoint, saved, recoveryAfter }) => {
        const successor: SessionTable = {
          id: ulid(),
          branch: predecessor.branch,
          client: caller.client,
          conversation,
          work: predecessor.work,
          agent: input.agent,
          provider: input.provider,
          model: input.model,
          status: "active",
          predecessor: predecessor.id,
          successor: null,
          summary: null,
          // Only a checkpoint the successor saves itself; the one it continues from is recorded
          // in its session.resumed event and read back as its inherited checkpoint.
          last_checkpoint: null,
          start_revision: unit.revision,
          end_revision: null,
          started_at: unit.time,
          ended_at: null,
        };
        const wasActive = predecessor.status === "active";
        const closed: SessionTable = {
          ...predecessor,
          successor: successor.id,
          ...(wasActive
            ? { status: "interrupted", end_revision: unit.revision, ended_at: unit.time }
            : {}),
        };
        // The predecessor leaves the binding before the successor takes it.
        await unit.tx
          .updateTable("sessions")
          .set({
            successor: successor.id,
            status: closed.status,
            end_revision: closed.end_revision,
            ended_at: closed.ended_at,
          })
          .where("id", "=", predecessor.id)
          .execute();
        await unit.tx.insertInto("sessions").values(successor).execute();
        const closedClaims = await unit.tx
          .selectFrom("claims")
          .select("id")
          .where("session", "=", predecessor.id)
          .where("status", "=", "active")
          .execute();
        const closedClaimIds = closedClaims.map((c) => c.id).sort();
        const inherited = await inheritClaims(unit, predecessor, successor, inheritance, {
          ttlMs: input.ttl_ms,
        });
        const held = inherited.find((c) => c.work === successor.work) ?? inherited[0];
        const predecessorWaits = await unit.tx
          .selectFrom("waits")
          .selectAll()
          .where("session", "=", predecessor.id)
          .orderBy("created_revision")
          .orderBy("id")
          .execute();
        return {
          // Stored text holding a credential (from before the policy) is neither returned nor
          // recorded as this request's result.
          result: redactSecretStrings({
            resumed: {
              session: sessionView(successor, ctx.store.projectId),
              claim: held === undefined ? null : claimView(held),
              from_session: sessionView(closed, ctx.store.projectId),
              closed_claim_ids: closedClaimIds,
            },
            from_session_id: predecessor.id,
            predecessor: sessionView(closed, ctx.store.projectId),
            checkpoint_id: checkpoint,
            recovery_basis: checkpoint === null ? "source_and_session_start" : "checkpoint",
            recovery_gaps: recoveryGaps(checkpoint, saved?.save ?? null),
            checkpoint_save: saved?.save ?? null,
            recovery_after_revision: recoveryAfter,
            claims: inherited.map((c) => claimView(c)),
            predecessor_waits: predecessorWaits.map(waitView),
          }),
          event: {
            type: DOMAIN_EVENT_TYPES.sessionResumed,
            work: successor.work,
            session: successor.id,
            summary: `session ${successor.id} resumes ${predecessor.id}`,
            payload: {
              predecessor: predecessor.id,
              checkpoint,
              recovery_after_revision: recoveryAfter,
              closed_claim_ids: closedClaimIds,
              conversation,
              claim_mode: mode,
              claims: inherited.map((c) => c.id),
            },
          },
        };
      },
    },
    options,
  );
}

/** What a successor is told it cannot recover, so it does not look for it. */
function recoveryGaps(checkpoint: string | null, save: CheckpointSave | null): string[] {
  if (checkpoint === null) {
    return [
      "No checkpoint was saved: the successor starts from the current sources and the changes since the predecessor's session began; a digest, next action or open loops were never recorded, so there are none to recover.",
    ];
  }
  return save?.delta_recorded === true
    ? []
    : [
        "The checkpoint was saved before checkpoints recorded their session delta: its next action and open loops are there, what the session did before it is not.",
      ];
}
