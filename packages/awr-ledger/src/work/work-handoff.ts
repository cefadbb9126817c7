import type { Kysely } from "kysely";
import { claimInForce } from "../claims/claim-in-force.js";
import { type ClaimView, claimView } from "../claims/claim-view.js";
import { expireClaim, markReleased } from "../claims/claims.js";
import { DOMAIN_EVENT_TYPES } from "../core/event-types.js";
import type {
  CallOptions,
  RuntimeCaller,
  RuntimeContext,
  WriteFields,
} from "../core/runtime-context.js";
import type { ClaimTable, SessionTable } from "../core/runtime-tables.js";
import { LedgerError } from "../errors.js";
import { ulid } from "../internal/ulid.js";
import type { EventRecord } from "../journal/operation-views.js";
import type { WriteReceipt } from "../journal/run-write.js";
import { activeBranchById } from "../runtime/branch-select.js";
import { runCheckedWrite } from "../runtime/checked-write.js";
import { pendingEvent } from "../runtime/pending-event.js";
import { requireWork, resolveActiveSession, resolveSession } from "../runtime/runtime-lookup.js";
import {
  type CheckpointView,
  checkpointView,
  type SessionView,
  sessionView,
} from "../runtime/runtime-views.js";
import type { LedgerSchema } from "../storage/schema.js";

export interface WorkHandoffInput extends WriteFields {
  work: string;
  /** The sender, by id or by its conversation. */
  session?: string | undefined;
  conversation?: string | undefined;
  to_session?: string | undefined;
  /** The transferred claim's lifetime instead of the sender's deadline; needs to_session. */
  ttl_ms?: number | undefined;
}

export interface WorkHandoffResult {
  handoff: {
    from_session: SessionView;
    to_session: SessionView | null;
    checkpoint: CheckpointView;
    closed_claim_ids: string[];
    transferred_claim: ClaimView | null;
  };
  context_requires_refresh: true;
  event: EventRecord;
}

const RECEIVER_RULE = "receiving session must be different and bound to the same work and branch";

/**
 * `awr work handoff` (docs/design/work-branches.md R9): the sender stops as `incomplete` and its
 * claims end; a receiver on the same work and branch takes over the sender's claim in force
 * (its deadline, or `ttl_ms`). The sender's last checkpoint stays the sender's.
 */
export async function workHandoff(
  ctx: RuntimeContext,
  input: WorkHandoffInput,
  caller: RuntimeCaller,
  options?: CallOptions,
): Promise<WorkHandoffResult & WriteReceipt> {
  if (input.ttl_ms !== undefined && input.to_session === undefined) {
    throw new LedgerError("InvalidInput", "ttl_ms applies to a receiver: pass to_session with it", {
      field: "ttl_ms",
    });
  }

  const check = async (db: Kysely<LedgerSchema>) => {
    const sender = await resolveActiveSession(db, caller, input, "handoff");
    const item = await requireWork(db, input.work);
    if (sender.work !== item.key) {
      throw new LedgerError(
        "InvalidInput",
        `session ${sender.id} is bound to ${sender.work ?? "no work"}, not ${item.key}; hand off the work the session is on`,
        { session: sender.id, work: item.key },
      );
    }
    await activeBranchById(db, sender.branch);
    const checkpointRow =
      sender.last_checkpoint === null
        ? undefined
        : await db
            .selectFrom("checkpoints")
            .selectAll()
            .where("id", "=", sender.last_checkpoint)
            .executeTakeFirst();
    if (checkpointRow === undefined) {
      throw new LedgerError(
        "ContextIncomplete",
        "save a checkpoint with next action and open loops before handoff",
        { session: sender.id },
      );
    }
    let receiver: SessionTable | undefined;
    if (input.to_session !== undefined) {
      receiver = await resolveSession(db, caller, { session: input.to_session });
      if (
        receiver.id === sender.id ||
        receiver.status !== "active" ||
        receiver.work !== sender.work ||
        (receiver.branch ?? null) !== (sender.branch ?? null)
      ) {
        throw new LedgerError("InvalidInput", RECEIVER_RULE, {
          session: sender.id,
          to_session: receiver.id,
        });
      }
    }
    return { sender, receiver, checkpoint: checkpointView(checkpointRow), work: item.key };
  };

  return runCheckedWrite(
    ctx,
    {
      input,
      caller,
      check,
      apply: async (unit, { sender, receiver, checkpoint, work }) => {
        await unit.tx
          .updateTable("sessions")
          .set({ status: "incomplete", end_revision: unit.revision, ended_at: unit.time })
          .where("id", "=", sender.id)
          .execute();
        const claims = await unit.tx
          .selectFrom("claims")
          .selectAll()
          .where("session", "=", sender.id)
          .where("status", "=", "active")
          .execute();
        let held: ClaimTable | undefined;
        for (const claim of claims) {
          if (claimInForce(claim, unit.nowMs)) {
            if (claim.work === work) held = claim;
            await markReleased(unit, claim);
          } else {
            await expireClaim(unit, claim);
          }
        }
        let transferred: ClaimTable | null = null;
        if (receiver !== undefined && held !== undefined) {
          const expiresAt =
            input.ttl_ms !== undefined
              ? unit.nowMs + input.ttl_ms
              : held.expires_at === null
                ? null
                : Number(held.expires_at);
          transferred = {
            id: ulid(),
            branch: sender.branch,
            work,
            session: receiver.id,
            client: receiver.client,
            status: "active",
            ttl_ms: input.ttl_ms ?? (held.ttl_ms === null ? null : Number(held.ttl_ms)),
            expires_at: expiresAt,
            acquired_revision: unit.revision,
            ended_revision: null,
            acquired_at: unit.time,
            ended_at: null,
          };
          await unit.tx.insertInto("claims").values(transferred).execute();
        }
        const payload = {
          from_session_id: sender.id,
          to_session_id: receiver?.id ?? null,
          checkpoint_id: checkpoint.id,
          closed_claim_ids: claims.map((c) => c.id),
          transferred_claim_id: transferred?.id ?? null,
          next_action: checkpoint.next_action,
          open_loops: checkpoint.open_loops,
          context_requires_refresh: true,
        };
        if (receiver !== undefined) {
          await unit.event({
            type: DOMAIN_EVENT_TYPES.sessionHandoffReceived,
            work,
            session: receiver.id,
            summary: `session ${receiver.id} received ${work} from session ${sender.id}`,
            payload,
          });
        }
        const { event, record } = pendingEvent(unit, caller, {
          type: DOMAIN_EVENT_TYPES.workHandoff,
          work,
          session: sender.id,
          branch: sender.branch,
          summary: `session ${sender.id} handed off ${work}${receiver === undefined ? "" : ` to session ${receiver.id}`}`,
          payload,
        });
        const ended = {
          ...sender,
          status: "incomplete",
          end_revision: unit.revision,
          ended_at: unit.time,
        };
        return {
          result: {
            handoff: {
              from_session: sessionView(ended, ctx.store.projectId),
              to_session:
                receiver === undefined ? null : sessionView(receiver, ctx.store.projectId),
              checkpoint,
              closed_claim_ids: payload.closed_claim_ids,
              transferred_claim: transferred === null ? null : claimView(transferred),
            },
            context_requires_refresh: true as const,
            event: record,
          },
          event,
        };
      },
    },
    options,
  );
}
