import type { Kysely } from "kysely";
import { DOMAIN_EVENT_TYPES } from "../core/event-types.js";
import type {
  CallOptions,
  RuntimeCaller,
  RuntimeContext,
  WriteFields,
} from "../core/runtime-context.js";
import { LedgerError } from "../errors.js";
import { ulid } from "../internal/ulid.js";
import type { WriteReceipt } from "../journal/run-write.js";
import { runCheckedWrite } from "../runtime/checked-write.js";
import { otherClientError } from "../runtime/runtime-lookup.js";
import { type WaitView, waitView } from "../runtime/runtime-views.js";
import type { LedgerSchema } from "../storage/schema.js";
import { REPLY_HOST_ACTION } from "./session-wait.js";

export interface SessionReplyInput extends WriteFields {
  /** The wait's id: it alone identifies the wait (and its session). */
  wait: string;
  /** The user's answer, or with `cancel: true` the reason for cancelling. */
  reply: string;
  cancel?: boolean | undefined;
}

export interface SessionReplyResult {
  wait: WaitView;
  /** The `mcp.wait_replied` event that is the reply's receipt. */
  event_id: string;
  host_action: string;
}

/**
 * awr_session_reply: answers (or, with `cancel: true`, cancels) a pending wait of this client.
 * It lifts the block and does nothing else: no session, claim or work state changes, nothing is
 * scheduled. Another client's wait is RuleViolation; a wait already answered or cancelled is
 * InvalidTransition (a retry with the same request_id replays the recorded reply instead).
 */
export async function sessionReply(
  ctx: RuntimeContext,
  input: SessionReplyInput,
  caller: RuntimeCaller,
  options?: CallOptions,
): Promise<SessionReplyResult & WriteReceipt> {
  if (input.reply.trim() === "") {
    throw new LedgerError("InvalidInput", "reply must contain text (the answer or the reason)", {
      field: "reply",
    });
  }
  const cancel = input.cancel === true;
  const check = async (db: Kysely<LedgerSchema>) => {
    const found = await db
      .selectFrom("waits")
      .innerJoin("sessions", "sessions.id", "waits.session")
      .selectAll("waits")
      .select(["sessions.client as client", "sessions.work as work"])
      .where("waits.id", "=", input.wait)
      .executeTakeFirst();
    if (found === undefined) {
      throw new LedgerError("NotFound", `no wait ${input.wait}`, { wait: input.wait });
    }
    const { client, work, ...wait } = found;
    if (client !== caller.client) throw otherClientError("wait", wait.id);
    if (wait.status !== "waiting_user") {
      throw new LedgerError("InvalidTransition", `wait ${wait.id} is already ${wait.status}`, {
        wait: wait.id,
        status: wait.status,
      });
    }
    return { wait, work };
  };
  return runCheckedWrite(
    ctx,
    {
      input,
      caller,
      check,
      apply: async (unit, { wait, work }) => {
        const status = cancel ? "cancelled" : "answered";
        const replied = {
          ...wait,
          status,
          answer: input.reply,
          replied_revision: unit.revision,
          replied_at: unit.time,
        };
        await unit.tx
          .updateTable("waits")
          .set({
            status,
            answer: input.reply,
            replied_revision: unit.revision,
            replied_at: unit.time,
          })
          .where("id", "=", wait.id)
          .execute();
        const eventId = ulid();
        return {
          result: { wait: waitView(replied), event_id: eventId, host_action: REPLY_HOST_ACTION },
          event: {
            id: eventId,
            type: DOMAIN_EVENT_TYPES.waitReplied,
            work,
            session: wait.session,
            summary: `wait ${wait.id} ${status}`,
            payload: { wait: wait.id, status },
          },
        };
      },
    },
    options,
  );
}
