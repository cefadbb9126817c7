import type { Kysely } from "kysely";
import { sql } from "../internal/kysely.js";
import type { LedgerSchema } from "./schema.js";

/**
 * What read caches key on (migration 009, docs/design/read-caching.md), read together in one
 * statement so the values always describe the same committed state.
 */
export interface ReadClock {
  /** The project revision. */
  revision: number;
  /** The projection generation: grows with every change to entities or dependencies only. */
  generation: number;
  /** The generation of the last change that added, removed or moved an entity or a dependency. */
  shape: number;
  /** Grows with every change to recorded evidence only. */
  evidence: number;
}

export async function readClock(db: Kysely<LedgerSchema>): Promise<ReadClock> {
  const { rows } = await sql<ReadClock>`
    SELECT revision, projection_generation AS generation, projection_shape AS shape,
           evidence_generation AS evidence
      FROM project_state`.execute(db);
  const row = rows[0];
  return {
    revision: Number(row?.revision ?? 0),
    generation: Number(row?.generation ?? 0),
    shape: Number(row?.shape ?? 0),
    evidence: Number(row?.evidence ?? 0),
  };
}

/**
 * The keys of the entities updated in place after generation `after` up to `upTo`, one per
 * generation, oldest first. Fewer than `upTo - after` entries means the window no longer reaches
 * back that far (or a structural change happened): the caller must reload instead.
 */
export async function entitiesUpdatedBetween(
  db: Kysely<LedgerSchema>,
  after: number,
  upTo: number,
): Promise<string[]> {
  const { rows } = await sql<{ entity_key: string }>`
    SELECT entity_key FROM projection_changes
     WHERE generation > ${after} AND generation <= ${upTo}
     ORDER BY generation`.execute(db);
  return rows.map((r) => r.entity_key);
}

/**
 * Runs `fn` in one read-only snapshot of the database: a deferred transaction on SQLite (WAL
 * readers see one commit throughout), REPEATABLE READ on PostgreSQL. For reads that must see the
 * clock and the rows it describes at the same point (kysely's SQLite driver ignores the
 * isolation settings; a deferred BEGIN is already a snapshot there). Never call it inside a write
 * transaction, and keep `fn` short: on SQLite it holds the process's one connection.
 */
export function inReadSnapshot<T>(
  db: Kysely<LedgerSchema>,
  fn: (tx: Kysely<LedgerSchema>) => Promise<T>,
): Promise<T> {
  return db
    .transaction()
    .setIsolationLevel("repeatable read")
    .setAccessMode("read only")
    .execute(fn);
}
