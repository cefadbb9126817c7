import { DOMAIN_EVENT_TYPES } from "../core/event-types.js";
import { LIMITS } from "../core/limits.js";
import type { CheckpointTable, SessionTable } from "../core/runtime-tables.js";
import { ulid } from "../internal/ulid.js";
import type { CommitUnit, DomainEvent } from "../journal/operation-scope.js";
import { sessionDelta } from "./checkpoint-delta.js";

/** What a checkpoint records (awr_session_checkpoint, and awr_session_wait's checkpoint). */
export interface CheckpointFields {
  digest: string;
  next_action: string;
  /** The context_hash of the packet the session last worked from. */
  context_hash: string;
  open_loops?: string[] | undefined;
  changed_entities?: string[] | undefined;
}

/**
 * Stores a checkpoint for `session`, makes it the session's last one, and returns the row with
 * its `checkpoint.created` event for the caller to append (terminal or not). The event saves the
 * session's delta since its previous checkpoint or its start (checkpoint-delta.ts); the row's
 * `changed_entities` are the caller's followed by the entities that delta observed changing.
 */
export async function insertCheckpoint(
  unit: CommitUnit,
  session: SessionTable,
  fields: CheckpointFields,
): Promise<{ row: CheckpointTable; event: DomainEvent }> {
  const reported = fields.changed_entities ?? [];
  const delta = await sessionDelta(unit.tx, session, unit.revision - 1, reported);
  const changed = [
    ...reported,
    ...delta.observed_changed_entities.filter((e) => !reported.includes(e)),
  ];
  const row: CheckpointTable = {
    id: ulid(),
    session: session.id,
    branch: session.branch,
    revision: unit.revision,
    context_hash: fields.context_hash,
    digest: fields.digest,
    next_action: fields.next_action,
    open_loops: JSON.stringify(fields.open_loops ?? []),
    changed_entities: JSON.stringify(changed),
    created_at: unit.time,
  };
  await unit.tx.insertInto("checkpoints").values(row).execute();
  await unit.tx
    .updateTable("sessions")
    .set({ last_checkpoint: row.id })
    .where("id", "=", session.id)
    .execute();
  return {
    row,
    event: {
      type: DOMAIN_EVENT_TYPES.checkpointCreated,
      work: session.work,
      session: session.id,
      summary: fields.digest.slice(0, LIMITS.summaryExcerpt),
      payload: {
        checkpoint: row.id,
        next_action: row.next_action,
        session_delta: { ...delta },
      },
    },
  };
}
