import type { Kysely } from "kysely";
import { DOMAIN_EVENT_TYPES } from "../core/event-types.js";
import type { CallOptions, RuntimeCaller, RuntimeContext } from "../core/runtime-context.js";
import { LedgerError } from "../errors.js";
import type { WriteReceipt } from "../journal/run-write.js";
import type { LedgerSchema } from "../storage/schema.js";
import { runCheckedWrite } from "./checked-write.js";
import { asFields, optBool, optText } from "./input/fields.js";
import {
  readSessionRef,
  readWriteFields,
  SESSION_REF_FIELDS,
  WRITE_FIELDS,
} from "./input/write-fields.js";
import { resolveSession } from "./runtime-lookup.js";
import { type WaitView, waitView } from "./runtime-views.js";

export interface SessionReplyInput {
  session?: string;
  conversation?: string;
  /** The wait to answer; defaults to the session's pending wait. */
  wait?: string;
  answer?: string;
  cancel?: boolean;
  expected_revision: number;
  request_id?: string;
}

export interface SessionReplyResult {
  wait: WaitView;
}

/**
 * awr_session_reply: answers or cancels a pending wait. It lifts the block and does nothing
 * else: no session, claim or work state changes, and nothing is scheduled.
 */
export async function sessionReply(
  ctx: RuntimeContext,
  input: SessionReplyInput,
  caller: RuntimeCaller,
  options?: CallOptions,
): Promise<SessionReplyResult & WriteReceipt> {
  const fields = asFields(input, [
    ...SESSION_REF_FIELDS,
    "wait",
    "answer",
    "cancel",
    ...WRITE_FIELDS,
  ]);
  const write = readWriteFields(fields);
  const ref = readSessionRef(fields);
  const waitId = optText(fields, "wait", { max: 256 });
  const answer = optText(fields, "answer", { max: 65_536 });
  const cancel = optBool(fields, "cancel") ?? false;
  if ((answer !== undefined) === cancel) {
    throw new LedgerError("InvalidInput", "give exactly one of answer or cancel: true", {
      field: "answer",
    });
  }
  const check = async (db: Kysely<LedgerSchema>) => {
    const session = await resolveSession(db, caller, ref);
    let query = db.selectFrom("waits").selectAll().where("session", "=", session.id);
    query =
      waitId === undefined
        ? query.where("status", "=", "waiting_user")
        : query.where("id", "=", waitId);
    const wait = await query.executeTakeFirst();
    if (wait === undefined) {
      throw new LedgerError(
        "NotFound",
        waitId === undefined
          ? `session ${session.id} has no pending wait`
          : `no wait ${waitId} on session ${session.id}`,
        { session: session.id, ...(waitId === undefined ? {} : { wait: waitId }) },
      );
    }
    if (wait.status !== "waiting_user") {
      throw new LedgerError("InvalidTransition", `wait ${wait.id} is already ${wait.status}`, {
        wait: wait.id,
        status: wait.status,
      });
    }
    return { session, wait };
  };
  return runCheckedWrite(
    ctx,
    {
      tool: "awr_session_reply",
      input: fields,
      write,
      caller,
      check,
      apply: async (unit, { session, wait }) => {
        const status = cancel ? "cancelled" : "answered";
        const replied = {
          ...wait,
          status,
          answer: answer ?? null,
          replied_revision: unit.revision,
          replied_at: unit.time,
        };
        await unit.tx
          .updateTable("waits")
          .set({
            status,
            answer: replied.answer,
            replied_revision: unit.revision,
            replied_at: unit.time,
          })
          .where("id", "=", wait.id)
          .execute();
        return {
          result: { wait: waitView(replied) },
          event: {
            type: DOMAIN_EVENT_TYPES.waitReplied,
            work: session.work,
            session: session.id,
            summary: `wait ${wait.id} ${status}`,
            payload: { wait: wait.id, status },
          },
        };
      },
    },
    options,
  );
}
