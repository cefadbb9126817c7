import { DOMAIN_EVENT_TYPES } from "../core/event-types.js";
import type { CheckpointTable, SessionTable } from "../core/runtime-tables.js";
import { ulid } from "../internal/ulid.js";
import type { CommitUnit, DomainEvent } from "../journal/operation-scope.js";
import { type Fields, optText, optTextList, text } from "./input/fields.js";

export interface CheckpointFields {
  digest: string;
  next_action?: string;
  open_loops?: string[];
  changed_entities?: string[];
  context_hash?: string;
}

export const CHECKPOINT_FIELDS = [
  "digest",
  "next_action",
  "open_loops",
  "changed_entities",
  "context_hash",
] as const;

export function readCheckpointFields(fields: Fields): CheckpointFields {
  const out: CheckpointFields = { digest: text(fields, "digest", { max: 65_536 }) };
  const nextAction = optText(fields, "next_action", { max: 4096 });
  const openLoops = optTextList(fields, "open_loops", { maxItems: 100 });
  const changed = optTextList(fields, "changed_entities", { maxItems: 500, maxLength: 256 });
  const hash = optText(fields, "context_hash", { max: 256 });
  if (nextAction !== undefined) out.next_action = nextAction;
  if (openLoops !== undefined) out.open_loops = openLoops;
  if (changed !== undefined) out.changed_entities = changed;
  if (hash !== undefined) out.context_hash = hash;
  return out;
}

/**
 * Stores a checkpoint for `session`, makes it the session's last one, and returns the row with
 * its `checkpoint.created` event for the caller to append (terminal or not).
 */
export async function insertCheckpoint(
  unit: CommitUnit,
  session: SessionTable,
  fields: CheckpointFields,
): Promise<{ row: CheckpointTable; event: DomainEvent }> {
  const row: CheckpointTable = {
    id: ulid(),
    session: session.id,
    revision: unit.revision,
    context_hash: fields.context_hash ?? null,
    digest: fields.digest,
    next_action: fields.next_action ?? null,
    open_loops: JSON.stringify(fields.open_loops ?? []),
    changed_entities: JSON.stringify(fields.changed_entities ?? []),
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
      summary: fields.digest.slice(0, 200),
      payload: { checkpoint: row.id, next_action: row.next_action },
    },
  };
}
