import type { Kysely } from "kysely";
import { runJournaledWrite, type WriteReceipt } from "../journal/run-write.js";
import type { LedgerSchema } from "../storage/schema.js";
import {
  CHECKPOINT_FIELDS,
  type CheckpointFields,
  insertCheckpoint,
  readCheckpointFields,
} from "./checkpoint-record.js";
import { asFields } from "./input/fields.js";
import {
  readSessionRef,
  readWriteFields,
  SESSION_REF_FIELDS,
  WRITE_FIELDS,
} from "./input/write-fields.js";
import type { CallOptions, RuntimeCaller, RuntimeContext } from "./runtime-context.js";
import { requireActive, resolveSession } from "./runtime-lookup.js";
import { type CheckpointView, checkpointView } from "./runtime-views.js";

export interface SessionCheckpointInput extends CheckpointFields {
  session?: string;
  conversation?: string;
  expected_revision: number;
  request_id?: string;
}

export interface SessionCheckpointResult {
  session: string;
  checkpoint: CheckpointView;
}

/** awr_session_checkpoint: records where an active session stands. */
export async function sessionCheckpoint(
  ctx: RuntimeContext,
  input: SessionCheckpointInput,
  caller: RuntimeCaller,
  options?: CallOptions,
): Promise<SessionCheckpointResult & WriteReceipt> {
  const fields = asFields(input, [...SESSION_REF_FIELDS, ...CHECKPOINT_FIELDS, ...WRITE_FIELDS]);
  const write = readWriteFields(fields);
  const ref = readSessionRef(fields);
  const checkpoint = readCheckpointFields(fields);
  const check = async (db: Kysely<LedgerSchema>) => {
    const session = await resolveSession(db, caller, ref);
    requireActive(session, "a checkpoint");
    return session;
  };
  return runJournaledWrite(
    ctx,
    {
      tool: "awr_session_checkpoint",
      input: fields,
      write,
      caller,
      precheck: async (db) => {
        await check(db);
        return undefined;
      },
      domain: (op) =>
        op.commit(async (unit) => {
          const session = await check(unit.tx);
          const { row, event } = await insertCheckpoint(unit, session, checkpoint);
          const result = { session: session.id, checkpoint: checkpointView(row) };
          await unit.terminal(event, result);
          return result;
        }),
    },
    options,
  );
}
