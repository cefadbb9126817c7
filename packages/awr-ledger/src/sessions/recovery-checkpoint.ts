import type { Kysely } from "kysely";
import { DOMAIN_EVENT_TYPES } from "../core/event-types.js";
import type { SessionTable } from "../core/runtime-tables.js";
import type { LedgerSchema } from "../storage/schema.js";

/**
 * The checkpoint a session was given rather than saved: the one its resume carried over from the
 * predecessor (recorded in its `session.resumed` event), or the one a handoff delivered (its
 * latest `session.handoff_received`). A session's own `last_checkpoint` only ever names a
 * checkpoint the session saved itself, so an inherited one is read from these receipts.
 */
export async function inheritedCheckpointId(
  db: Kysely<LedgerSchema>,
  session: string,
): Promise<string | null> {
  const received = await db
    .selectFrom("events")
    .select(["type", "payload"])
    .where("session", "=", session)
    .where("type", "in", [
      DOMAIN_EVENT_TYPES.sessionResumed,
      DOMAIN_EVENT_TYPES.sessionHandoffReceived,
    ])
    .orderBy("seq", "desc")
    .limit(1)
    .executeTakeFirst();
  if (received === undefined) return null;
  const payload = JSON.parse(received.payload) as { checkpoint?: unknown; checkpoint_id?: unknown };
  const id =
    received.type === DOMAIN_EVENT_TYPES.sessionResumed
      ? payload.checkpoint
      : payload.checkpoint_id;
  return typeof id === "string" ? id : null;
}

/**
 * The revision a successor of `session` recovers from when there is no checkpoint: the one the
 * session itself recovered from when it was resumed (recorded in its `session.resumed` event as
 * `recovery_after_revision`), else its start. So a chain of checkpointless resumes keeps the
 * first session's start as the baseline of its delta.
 */
export async function recoveryRevision(
  db: Kysely<LedgerSchema>,
  session: SessionTable,
): Promise<number> {
  const resumed = await db
    .selectFrom("events")
    .select("payload")
    .where("session", "=", session.id)
    .where("type", "=", DOMAIN_EVENT_TYPES.sessionResumed)
    .orderBy("seq", "desc")
    .limit(1)
    .executeTakeFirst();
  const start = Number(session.start_revision);
  if (resumed === undefined) return start;
  const recorded = (JSON.parse(resumed.payload) as { recovery_after_revision?: unknown })
    .recovery_after_revision;
  return typeof recorded === "number" && recorded >= 0 && recorded <= start ? recorded : start;
}

/**
 * Where a successor of `session` continues from: the session's own last checkpoint, else the
 * one it inherited itself (so a chain of resumes without checkpoints keeps the first one).
 */
export async function recoveryCheckpointId(
  db: Kysely<LedgerSchema>,
  session: SessionTable,
): Promise<string | null> {
  return session.last_checkpoint ?? (await inheritedCheckpointId(db, session.id));
}
