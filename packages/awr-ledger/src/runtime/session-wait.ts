import type { Kysely } from "kysely";
import { DOMAIN_EVENT_TYPES } from "../core/event-types.js";
import type { CallOptions, RuntimeCaller, RuntimeContext } from "../core/runtime-context.js";
import type { WaitTable } from "../core/runtime-tables.js";
import { LedgerError } from "../errors.js";
import { ulid } from "../internal/ulid.js";
import type { WriteReceipt } from "../journal/run-write.js";
import type { LedgerSchema } from "../storage/schema.js";
import { runCheckedWrite } from "./checked-write.js";
import {
  CHECKPOINT_FIELDS,
  type CheckpointFields,
  insertCheckpoint,
  readCheckpointFields,
} from "./checkpoint-record.js";
import { asFields, text } from "./input/fields.js";
import {
  readSessionRef,
  readWriteFields,
  SESSION_REF_FIELDS,
  WRITE_FIELDS,
} from "./input/write-fields.js";
import { pendingWait, resolveActiveSession } from "./runtime-lookup.js";
import { type CheckpointView, checkpointView, type WaitView, waitView } from "./runtime-views.js";

export interface SessionWaitInput
  extends Omit<CheckpointFields, "changed_entities" | "context_hash"> {
  session?: string;
  conversation?: string;
  question: string;
  expected_revision: number;
  request_id?: string;
}

export interface SessionWaitResult {
  wait: WaitView;
  checkpoint: CheckpointView;
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
  const allowed = CHECKPOINT_FIELDS.filter((f) => f !== "changed_entities" && f !== "context_hash");
  const fields = asFields(input, [...SESSION_REF_FIELDS, "question", ...allowed, ...WRITE_FIELDS]);
  const write = readWriteFields(fields);
  const ref = readSessionRef(fields);
  const question = text(fields, "question", { max: 65_536 });
  const checkpoint = readCheckpointFields(fields);
  const check = async (db: Kysely<LedgerSchema>) => {
    const session = await resolveActiveSession(db, caller, ref, "a wait");
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
      tool: "awr_session_wait",
      input: fields,
      write,
      caller,
      check,
      apply: async (unit, session) => {
        const created = await insertCheckpoint(unit, session, checkpoint);
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
        return {
          result: { wait: waitView(wait), checkpoint: checkpointView(created.row) },
          event: {
            type: DOMAIN_EVENT_TYPES.waitCreated,
            work: session.work,
            session: session.id,
            summary: question.slice(0, 200),
            payload: { wait: wait.id, checkpoint: created.row.id },
          },
        };
      },
    },
    options,
  );
}
