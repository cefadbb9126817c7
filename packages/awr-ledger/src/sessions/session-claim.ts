import type { Kysely } from "kysely";
import { claimStatusAt } from "../claims/claim-in-force.js";
import { type ClaimView, claimView } from "../claims/claim-view.js";
import {
  acquireClaim,
  claimConflict,
  claimHolder,
  markReleased,
  settleWorkClaim,
} from "../claims/claims.js";
import { DOMAIN_EVENT_TYPES } from "../core/event-types.js";
import type {
  CallOptions,
  RuntimeCaller,
  RuntimeContext,
  WriteFields,
} from "../core/runtime-context.js";
import type { ClaimTable } from "../core/runtime-tables.js";
import { LedgerError } from "../errors.js";
import { ulid } from "../internal/ulid.js";
import type { WriteReceipt } from "../journal/run-write.js";
import { activeBranchById } from "../runtime/branch-select.js";
import { type CheckedChange, runCheckedWrite } from "../runtime/checked-write.js";
import { otherClientError, requireWork, resolveActiveSession } from "../runtime/runtime-lookup.js";
import type { LedgerSchema } from "../storage/schema.js";

export interface SessionClaimInput extends WriteFields {
  session?: string | undefined;
  conversation?: string | undefined;
  action: "acquire" | "release";
  /** release: the claim to release (default: the session's claim on its work). */
  claim?: string | undefined;
  /** acquire: the claim's lifetime from now; omit for no expiry. */
  ttl_ms?: number | undefined;
}

export interface SessionClaimResult {
  action: "acquire" | "release";
  claim: ClaimView;
  /** True when an acquire renewed the session's own claim (new ttl from now). */
  renewed: boolean;
  /** The `work.claimed` or `claim.released` event. */
  event_id: string;
}

const CLOSED = ["completed", "cancelled"];

/**
 * awr_session_claim: acquire (or renew) the claim of an active session on its work item, or
 * release one of its claims. At most one claim is in force per item; a claim never rewrites the
 * source status. Another client's claim is RuleViolation; another session's, ClaimConflict.
 */
export async function sessionClaim(
  ctx: RuntimeContext,
  input: SessionClaimInput,
  caller: RuntimeCaller,
  options?: CallOptions,
): Promise<SessionClaimResult & WriteReceipt> {
  const { action } = input;
  if (input.ttl_ms !== undefined && action === "release") {
    throw new LedgerError("InvalidInput", "ttl_ms applies to acquire only", { field: "ttl_ms" });
  }
  if (input.claim !== undefined && action === "acquire") {
    throw new LedgerError(
      "InvalidInput",
      "claim names the claim to release; acquire takes the session's work",
      { field: "claim" },
    );
  }

  const releaseTarget = async (
    db: Kysely<LedgerSchema>,
    session: { id: string; work: string | null; branch: string | null },
    nowMs: number,
  ): Promise<ClaimTable> => {
    if (input.claim !== undefined) {
      const row = await db
        .selectFrom("claims")
        .selectAll()
        .where("id", "=", input.claim)
        .executeTakeFirst();
      if (row === undefined) {
        throw new LedgerError("NotFound", `no claim ${input.claim}`, { claim: input.claim });
      }
      if (row.client !== caller.client) throw otherClientError("claim", row.id);
      if (row.session !== session.id) {
        throw new LedgerError(
          "ClaimConflict",
          `claim ${row.id} belongs to session ${row.session}, not to ${session.id}`,
          { claim: row.id, holder: { session: row.session, claim: row.id } },
        );
      }
      const status = claimStatusAt(row, nowMs);
      if (status !== "active") {
        throw new LedgerError("InvalidTransition", `claim ${row.id} is already ${status}`, {
          claim: row.id,
          status,
        });
      }
      return row;
    }
    const work = session.work;
    const holder = work === null ? undefined : await claimHolder(db, work, nowMs, session.branch);
    if (holder === undefined || holder.session !== session.id) {
      throw new LedgerError(
        "ClaimConflict",
        `session ${session.id} holds no claim to release` +
          (holder === undefined ? "" : ` (session ${holder.session} holds the one on ${work})`),
        {
          work,
          session: session.id,
          holder: holder === undefined ? null : { session: holder.session, claim: holder.id },
        },
      );
    }
    return holder;
  };

  const check = async (db: Kysely<LedgerSchema>, nowMs: number) => {
    const session = await resolveActiveSession(db, caller, input, `claim ${action}`);
    if (action === "release") return { session, release: await releaseTarget(db, session, nowMs) };
    if (session.work === null) {
      throw new LedgerError("InvalidInput", "the session has no work item to claim", {
        session: session.id,
      });
    }
    const item = await requireWork(db, session.work);
    if (CLOSED.includes(item.status)) {
      throw new LedgerError(
        "InvalidTransition",
        `work ${item.key} is ${item.status}; reopen it before claiming it`,
        { work: item.key, status: item.status },
      );
    }
    await activeBranchById(db, session.branch);
    const holder = await claimHolder(db, item.key, nowMs, session.branch);
    if (holder !== undefined && holder.session !== session.id)
      throw claimConflict(item.key, holder);
    return { session, work: item.key };
  };

  return runCheckedWrite(
    ctx,
    {
      input,
      caller,
      check,
      apply: async (unit, checked): Promise<CheckedChange<SessionClaimResult>> => {
        const { session } = checked;
        const eventId = ulid();
        if (checked.release === undefined) {
          const work = checked.work as string;
          const { claim, renewed, expired } = await acquireClaim(unit, session, work, input.ttl_ms);
          return {
            result: { action, claim: claimView(claim), renewed, event_id: eventId },
            event: {
              id: eventId,
              type: DOMAIN_EVENT_TYPES.workClaimed,
              work,
              session: session.id,
              summary: `session ${session.id} ${renewed ? "renewed its claim on" : "claimed"} ${work}`,
              payload: {
                claim: claim.id,
                ttl_ms: input.ttl_ms ?? null,
                renewed,
                expired_claim_ids: expired,
              },
            },
          };
        }
        // Marks a lapsed claim expired on the way (claim.expired); the target must still be held.
        const { holder: held } = await settleWorkClaim(
          unit,
          checked.release.work,
          checked.release.branch,
        );
        if (held?.id !== checked.release.id) {
          throw new LedgerError(
            "InvalidTransition",
            `claim ${checked.release.id} expired before it could be released`,
            { claim: checked.release.id },
          );
        }
        const released = await markReleased(unit, held);
        return {
          result: { action, claim: claimView(released), renewed: false, event_id: eventId },
          event: {
            id: eventId,
            type: DOMAIN_EVENT_TYPES.claimReleased,
            work: held.work,
            session: session.id,
            summary: `claim on ${held.work} released by session ${session.id}`,
            payload: { claim: held.id, reason: "release" },
          },
        };
      },
    },
    options,
  );
}
