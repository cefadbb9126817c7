import { DOMAIN_EVENT_TYPES } from "../core/event-types.js";
import type { CallOptions, RuntimeCaller, RuntimeContext } from "../core/runtime-context.js";
import { SESSION_END_STATUSES, type SessionEndStatus } from "../core/runtime-tables.js";
import type { WriteReceipt } from "../journal/run-write.js";
import { runCheckedWrite } from "./checked-write.js";
import { releaseSessionClaims } from "./claims.js";
import { asFields, choice, optText } from "./input/fields.js";
import {
  readSessionRef,
  readWriteFields,
  SESSION_REF_FIELDS,
  WRITE_FIELDS,
} from "./input/write-fields.js";
import { resolveActiveSession } from "./runtime-lookup.js";
import { type ClaimView, claimView, type SessionView, sessionView } from "./runtime-views.js";

export interface SessionEndInput {
  session?: string;
  conversation?: string;
  status: SessionEndStatus;
  summary?: string;
  expected_revision: number;
  request_id?: string;
}

export interface SessionEndResult {
  session: SessionView;
  /** The claims this end released. */
  released_claims: ClaimView[];
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
  const fields = asFields(input, [...SESSION_REF_FIELDS, "status", "summary", ...WRITE_FIELDS]);
  const write = readWriteFields(fields);
  const ref = readSessionRef(fields);
  const status = choice(fields, "status", SESSION_END_STATUSES);
  const summary = optText(fields, "summary", { max: 65_536 });
  return runCheckedWrite(
    ctx,
    {
      tool: "awr_session_end",
      input: fields,
      write,
      caller,
      check: (db) => resolveActiveSession(db, caller, ref, "ending a session"),
      apply: async (unit, session) => {
        const released = await releaseSessionClaims(unit, session.id, `session ${status}`);
        const ended = {
          ...session,
          status,
          summary: summary ?? session.summary,
          end_revision: unit.revision,
          ended_at: unit.time,
        };
        await unit.tx
          .updateTable("sessions")
          .set({
            status,
            summary: ended.summary,
            end_revision: unit.revision,
            ended_at: unit.time,
          })
          .where("id", "=", session.id)
          .execute();
        return {
          result: { session: sessionView(ended), released_claims: released.map(claimView) },
          event: {
            type: DOMAIN_EVENT_TYPES.sessionEnded,
            work: session.work,
            session: session.id,
            summary: summary ?? `session ${status}`,
            payload: { status, released_claims: released.map((c) => c.id) },
          },
        };
      },
    },
    options,
  );
}
