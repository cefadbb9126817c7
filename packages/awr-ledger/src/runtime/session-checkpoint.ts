import type { CallOptions, RuntimeCaller, RuntimeContext } from "../core/runtime-context.js";
import type { WriteReceipt } from "../journal/run-write.js";
import { runCheckedWrite } from "./checked-write.js";
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
import { resolveActiveSession } from "./runtime-lookup.js";
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
  return runCheckedWrite(
    ctx,
    {
      tool: "awr_session_checkpoint",
      input: fields,
      write,
      caller,
      check: (db) => resolveActiveSession(db, caller, ref, "a checkpoint"),
      apply: async (unit, session) => {
        const { row, event } = await insertCheckpoint(unit, session, checkpoint);
        return { result: { session: session.id, checkpoint: checkpointView(row) }, event };
      },
    },
    options,
  );
}
