import { type ClaimView, claimView } from "../claims/claim-view.js";
import { releaseSessionClaims } from "../claims/claims.js";
import { DOMAIN_EVENT_TYPES } from "../core/event-types.js";
import type {
  CallOptions,
  RuntimeCaller,
  RuntimeContext,
  WriteFields,
} from "../core/runtime-context.js";
import type { SessionEndStatus } from "../core/runtime-tables.js";
import { ulid } from "../internal/ulid.js";
import type { WriteReceipt } from "../journal/run-write.js";
import { runCheckedWrite } from "../runtime/checked-write.js";
import { resolveActiveSession } from "../runtime/runtime-lookup.js";
import { type SessionView, sessionView } from "../runtime/runtime-views.js";

export interface SessionEndInput extends WriteFields {
  session?: string | undefined;
  conversation?: string | undefined;
  outcome: SessionEndStatus;
}

export interface SessionEndResult {
  session: SessionView;
  /** The claims this end released. */
  released_claims: ClaimView[];
  /** Their ids (docs/compatibility/runtime.md). */
  closed_claim_ids: string[];
  /** The `session.ended` event. */
  event_id: string;
}

/**
 * awr_session_end: ends an active session as ended|interrupted|incomplete and releases its
 * claims. A pending wait stays pending (it can still be answered or cancelled).
 */
export async function sessionEnd(
  ctx: RuntimeContext,
  input: SessionEndInput,
  caller: RuntimeCaller,
  options?: CallOptions,
): Promise<SessionEndResult & WriteReceipt> {
  const status = input.outcome;
  return runCheckedWrite(
    ctx,
    {
      input,
      caller,
      check: (db) => resolveActiveSession(db, caller, input, "ending a session"),
      apply: async (unit, session) => {
        const released = await releaseSessionClaims(unit, session.id, `session ${status}`);
        const ended = { ...session, status, end_revision: unit.revision, ended_at: unit.time };
        await unit.tx
          .updateTable("sessions")
          .set({ status, end_revision: unit.revision, ended_at: unit.time })
          .where("id", "=", session.id)
          .execute();
        const eventId = ulid();
        return {
          result: {
            session: sessionView(ended, ctx.store.projectId),
            released_claims: released.map(claimView),
            closed_claim_ids: released.map((c) => c.id),
            event_id: eventId,
          },
          event: {
            id: eventId,
            type: DOMAIN_EVENT_TYPES.sessionEnded,
            work: session.work,
            session: session.id,
            summary: `session ${status}`,
            payload: { status, released_claims: released.map((c) => c.id) },
          },
        };
      },
    },
    options,
  );
}
