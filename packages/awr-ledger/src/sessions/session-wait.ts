import type { Kysely } from "kysely";
import { DOMAIN_EVENT_TYPES } from "../core/event-types.js";
import { LIMITS } from "../core/limits.js";
import type {
  CallOptions,
  RuntimeCaller,
  RuntimeContext,
  WriteFields,
} from "../core/runtime-context.js";
import type { WaitTable } from "../core/runtime-tables.js";
import { LedgerError } from "../errors.js";
import { ulid } from "../internal/ulid.js";
import type { WriteReceipt } from "../journal/run-write.js";
import { runCheckedWrite } from "../runtime/checked-write.js";
import { pendingWait, resolveActiveSession } from "../runtime/runtime-lookup.js";
import {
  type CheckpointView,
  checkpointView,
  type WaitView,
  waitView,
} from "../runtime/runtime-views.js";
import type { LedgerSchema } from "../storage/schema.js";
import { type CheckpointFields, insertCheckpoint } from "./checkpoint-record.js";

export interface SessionWaitInput extends Omit<CheckpointFields, "changed_entities">, WriteFields {
  session?: string | undefined;
  conversation?: string | undefined;
  question: string;
}

/** What the host does next: the ledger records the question and schedules nothing. */
export const WAIT_HOST_ACTION =
  "Ask the user, then record the answer with awr_session_reply (wait id); AWR starts no turn itself.";
export const REPLY_HOST_ACTION =
  "Read the session (awr_session_get) and compile fresh context before continuing; resume explicitly if a new session is needed.";

export interface SessionWaitResult {
  wait: WaitView;
  checkpoint: CheckpointView;
  /** The `mcp.wait_created` event that is the wait's receipt. */
  event_id: string;
  host_action: string;
}

/**
 * awr_session_wait: a checkpoint plus one pending question for the user. While it is pending,
 * transitions of the session's work and resuming the session are refused.
 */
export async function sessionWait(
  ctx: RuntimeContext,
  input: SessionWaitInput,
  caller: RuntimeCaller,
  options?: CallOptions,
): Promise<SessionWaitResult & WriteReceipt> {
  const { question } = input;
  if (question.trim() === "") {
    throw new LedgerError("InvalidInput", "question must contain text", { field: "question" });
  }
  const check = async (db: Kysely<LedgerSchema>) => {
    const session = await resolveActiveSession(db, caller, input, "a wait");
    const pending = await pendingWait(db, session.id);
    if (pending !== undefined) {
      throw new LedgerError(
        "InvalidTransition",
        `session ${session.id} already waits on ${pending.id} ("${pending.question}"); a session has one pending question at a time`,
        { wait: pending.id, session: session.id },
      );
    }
    return session;
  };
  return runCheckedWrite(
    ctx,
    {
      input,
      caller,
      check,
      apply: async (unit, session) => {
        const created = await insertCheckpoint(unit, session, input);
        await unit.event(created.event);
        const wait: WaitTable = {
          id: ulid(),
          session: session.id,
          checkpoint: created.row.id,
          question,
          status: "waiting_user",
          answer: null,
          created_revision: unit.revision,
          replied_revision: null,
          created_at: unit.time,
          replied_at: null,
        };
        await unit.tx.insertInto("waits").values(wait).execute();
        const eventId = ulid();
        return {
          result: {
            wait: waitView(wait),
            checkpoint: checkpointView(created.row),
            event_id: eventId,
            host_action: WAIT_HOST_ACTION,
          },
          event: {
            id: eventId,
            type: DOMAIN_EVENT_TYPES.waitCreated,
            work: session.work,
            session: session.id,
            summary: question.slice(0, LIMITS.summaryExcerpt),
            payload: { wait: wait.id, checkpoint: created.row.id },
          },
        };
      },
    },
    options,
  );
}
