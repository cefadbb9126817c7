import type {
  CallOptions,
  RuntimeCaller,
  RuntimeContext,
  WriteFields,
} from "../core/runtime-context.js";
import { ulid } from "../internal/ulid.js";
import type { WriteReceipt } from "../journal/run-write.js";
import { runCheckedWrite } from "../runtime/checked-write.js";
import { resolveActiveSession } from "../runtime/runtime-lookup.js";
import { type CheckpointView, checkpointView } from "../runtime/runtime-views.js";
import { type CheckpointSave, type SessionDelta, saveOf } from "./checkpoint-delta.js";
import { type CheckpointFields, insertCheckpoint } from "./checkpoint-record.js";

export interface SessionCheckpointInput extends CheckpointFields, WriteFields {
  session?: string | undefined;
  conversation?: string | undefined;
}

export interface SessionCheckpointResult {
  session: string;
  checkpoint: CheckpointView;
  /** What the checkpoint saved: its delta's counts (checkpoint-delta.ts). */
  checkpoint_save: CheckpointSave;
  /** The `checkpoint.created` event. */
  event_id: string;
}

/** awr_session_checkpoint: records where an active session stands. */
export async function sessionCheckpoint(
  ctx: RuntimeContext,
  input: SessionCheckpointInput,
  caller: RuntimeCaller,
  options?: CallOptions,
): Promise<SessionCheckpointResult & WriteReceipt> {
  return runCheckedWrite(
    ctx,
    {
      input,
      caller,
      check: (db) => resolveActiveSession(db, caller, input, "a checkpoint"),
      apply: async (unit, session) => {
        const { row, event } = await insertCheckpoint(unit, session, input);
        const eventId = ulid();
        const delta = (event.payload?.["session_delta"] ?? null) as SessionDelta | null;
        const checkpoint_save = saveOf(eventId, delta);
        return {
          result: {
            session: session.id,
            checkpoint: checkpointView(row),
            checkpoint_save,
            event_id: eventId,
          },
          event: { ...event, id: eventId },
        };
      },
    },
    options,
  );
}
