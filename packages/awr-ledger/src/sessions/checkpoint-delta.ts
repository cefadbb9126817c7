import type { Kysely } from "kysely";
import { DOMAIN_EVENT_TYPES, JOURNAL_RECEIPT_TYPES } from "../core/event-types.js";
import { LIMITS } from "../core/limits.js";
import type { SessionTable } from "../core/runtime-tables.js";
import type { EntityChange } from "../projection/apply-reindex.js";
import type { LedgerSchema } from "../storage/schema.js";

/** The version of the delta a checkpoint saves (`checkpoint_save.delta_recorded` needs it). */
export const SESSION_DELTA_SCHEMA = 1;

/** Bounds on what one checkpoint saves: the delta is references and summaries, never bodies. */
const MAX_SESSION_EVENTS = LIMITS.checkpointEvents;
const MAX_SOURCE_OBSERVATIONS = LIMITS.checkpointSourceObservations;
const SUMMARY_CHARS = LIMITS.checkpointSummaryChars;

export interface SessionDeltaEvent {
  id: string;
  revision: number;
  type: string;
  importance: string;
  /** At most 240 characters (cut with `…`). */
  summary: string | null;
  work: string | null;
}

export interface SourceObservation {
  /** The `source.projected` event that recorded it. */
  event: { id: string; revision: number };
  source: string;
  changes: EntityChange[];
}

/**
 * What a session did and saw between its previous checkpoint (or its start) and a new
 * checkpoint, saved with the checkpoint in its `checkpoint.created` event: the session's own
 * events (checkpoint and source bookkeeping left out), every source change projected in the same
 * revision window (project-wide: observations, not claims that this session made them), and the
 * entities those changes touched as `kind:key` (`observed_changed_entities`) beside the ones the
 * caller reported.
 */
export interface SessionDelta {
  schema: number;
  session_id: string;
  work: string | null;
  branch_id: string | null;
  baseline_checkpoint_id: string | null;
  after_revision: number;
  through_revision: number;
  session_events: SessionDeltaEvent[];
  source_observations: SourceObservation[];
  observed_changed_entities: string[];
  reported_changed_entities: string[];
  /** True when a bound cut the events or observations (the full history stays in events). */
  truncated: boolean;
}

/** The name a checkpoint gives a changed entity: its kind and its source's key. */
export const changedEntityName = (change: Pick<EntityChange, "kind" | "external_key">) =>
  `${change.kind}:${change.external_key}`;

/** The delta of `session` through `through` (the revision before the checkpoint's own). */
export async function sessionDelta(
  db: Kysely<LedgerSchema>,
  session: SessionTable,
  through: number,
  reported: readonly string[],
): Promise<SessionDelta> {
  const baseline =
    session.last_checkpoint === null
      ? undefined
      : await db
          .selectFrom("checkpoints")
          .select(["id", "revision"])
          .where("id", "=", session.last_checkpoint)
          .executeTakeFirst();
  const after = Math.min(
    baseline === undefined ? Number(session.start_revision) : Number(baseline.revision),
    through,
  );
  const own = await db
    .selectFrom("events")
    .select(["id", "revision", "type", "importance", "summary", "work"])
    .where("session", "=", session.id)
    .where("revision", ">", after)
    .where("revision", "<=", through)
    .where("type", "not like", "source.%")
    .where("type", "not like", "checkpoint.%")
    .where("type", "not in", [...JOURNAL_RECEIPT_TYPES])
    .orderBy("seq")
    .limit(MAX_SESSION_EVENTS + 1)
    .execute();
  const projected = await db
    .selectFrom("events")
    .select(["id", "revision", "payload"])
    .where("type", "=", DOMAIN_EVENT_TYPES.sourceProjected)
    .where("revision", ">", after)
    .where("revision", "<=", through)
    .orderBy("seq")
    .limit(MAX_SOURCE_OBSERVATIONS + 1)
    .execute();
  const observations = projected.slice(0, MAX_SOURCE_OBSERVATIONS).map((e) => {
    const payload = JSON.parse(e.payload) as { source: string; changes: EntityChange[] };
    return {
      event: { id: e.id, revision: Number(e.revision) },
      source: payload.source,
      changes: payload.changes,
    };
  });
  const observed = new Set(observations.flatMap((o) => o.changes.map(changedEntityName)));
  return {
    schema: SESSION_DELTA_SCHEMA,
    session_id: session.id,
    work: session.work,
    branch_id: session.branch ?? null,
    baseline_checkpoint_id: baseline?.id ?? null,
    after_revision: after,
    through_revision: through,
    session_events: own.slice(0, MAX_SESSION_EVENTS).map((e) => ({
      id: e.id,
      revision: Number(e.revision),
      type: e.type,
      importance: e.importance,
      summary:
        e.summary === null || e.summary.length <= SUMMARY_CHARS
          ? e.summary
          : `${e.summary.slice(0, SUMMARY_CHARS)}…`,
      work: e.work,
    })),
    source_observations: observations,
    observed_changed_entities: [...observed].sort(),
    reported_changed_entities: [...reported],
    truncated: own.length > MAX_SESSION_EVENTS || projected.length > MAX_SOURCE_OBSERVATIONS,
  };
}

/**
 * `checkpoint_save`: counts and provenance of what a checkpoint saved, from its
 * `checkpoint.created` event (the delta itself is read with `object show checkpoint ID --full`).
 * `delta_recorded` is false for a checkpoint saved before deltas were (its event has none).
 */
export interface CheckpointSave {
  event_id: string;
  delta_recorded: boolean;
  after_revision: number | null;
  through_revision: number | null;
  session_event_count: number | null;
  source_observation_count: number | null;
  observed_changed_entity_count: number | null;
  reported_changed_entity_count: number | null;
  delta_bytes: number | null;
  /** The context hash is the caller's; AWR checks its form, not what it was computed over. */
  context_hash_verified: false;
}

/** The save metadata and the saved delta (null before deltas were saved) of one checkpoint. */
export async function checkpointSave(
  db: Kysely<LedgerSchema>,
  checkpoint: string,
): Promise<{ save: CheckpointSave; delta: SessionDelta | null } | null> {
  const rows = await db
    .selectFrom("events")
    .select(["id", "payload"])
    .where("type", "=", DOMAIN_EVENT_TYPES.checkpointCreated)
    .where("payload", "like", `%${checkpoint}%`)
    .execute();
  const found = rows
    .map((r) => ({ id: r.id, payload: JSON.parse(r.payload) as Record<string, unknown> }))
    .find((r) => r.payload["checkpoint"] === checkpoint);
  if (found === undefined) return null;
  const delta = (found.payload["session_delta"] as SessionDelta | undefined) ?? null;
  return { save: saveOf(found.id, delta), delta };
}

/** The save metadata of a checkpoint whose `checkpoint.created` event is `eventId`. */
export function saveOf(eventId: string, delta: SessionDelta | null): CheckpointSave {
  const recorded = delta !== null && delta.schema === SESSION_DELTA_SCHEMA;
  return {
    event_id: eventId,
    delta_recorded: recorded,
    after_revision: recorded ? delta.after_revision : null,
    through_revision: recorded ? delta.through_revision : null,
    session_event_count: recorded ? delta.session_events.length : null,
    source_observation_count: recorded ? delta.source_observations.length : null,
    observed_changed_entity_count: recorded ? delta.observed_changed_entities.length : null,
    reported_changed_entity_count: recorded ? delta.reported_changed_entities.length : null,
    delta_bytes: recorded ? Buffer.byteLength(JSON.stringify(delta)) : null,
    context_hash_verified: false,
  };
}
