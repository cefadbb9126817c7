import type { Kysely } from "kysely";
import { PROJECTION_CHANGE_WINDOW } from "../storage/migrations/009-projection-changes.js";
import {
  entitiesUpdatedBetween,
  inReadSnapshot,
  type ReadClock,
  readClock,
} from "../storage/read-clock.js";
import type { LedgerSchema } from "../storage/schema.js";
import { ENTITY_COLUMNS } from "./entity-row.js";
import { Projection } from "./projection.js";

/**
 * The projection (entities, dependencies and the sources' notes) as of a project revision, kept
 * per database handle and brought up to date from the database's own projection clock
 * (docs/design/read-caching.md):
 * - at a revision already confirmed: no query at all;
 * - at a newer revision: one statement reads the clock; if the projection generation did not
 *   move (the write was an event, a claim, a session, a checkpoint, evidence, a journal step) the
 *   cached projection is current;
 * - if only entities were updated in place (work transitions) and the change window reaches
 *   back far enough: those rows are read and put in place, and every derived value is updated;
 * - otherwise (a reindex, or too far behind): a full reload.
 * The last two read the clock and the rows in one snapshot, so a cached projection is exactly
 * the projection at its generation. The clock lives in the database, so writes by other
 * processes and other service instances are seen on the next read at a newer revision.
 *
 * Contract (unchanged from the per-revision memo it replaces): callers read the revision before
 * asking; the projection returned is never older than that revision, and may be newer.
 */
interface Cache {
  current: Projection | undefined;
  /** The newest clock read at which `current` was the projection. */
  clock: ReadClock | undefined;
  refreshing: Promise<void> | undefined;
}

const caches = new WeakMap<object, Cache>();

/** The projection as of `revision` (or newer; see above). */
export async function projectionAt(
  db: Kysely<LedgerSchema>,
  revision: number,
): Promise<Projection> {
  return (await readStateAt(db, revision)).projection;
}

/**
 * The projection and a clock it is current at, as of `revision` (or newer): the clock's
 * revision is at least `revision`, and its evidence generation is the one to key evidence by.
 */
export async function readStateAt(
  db: Kysely<LedgerSchema>,
  revision: number,
): Promise<{ projection: Projection; clock: ReadClock }> {
  let cache = caches.get(db);
  if (cache === undefined) {
    cache = { current: undefined, clock: undefined, refreshing: undefined };
    caches.set(db, cache);
  }
  for (;;) {
    const { current, clock } = cache;
    if (current !== undefined && clock !== undefined && revision <= clock.revision) {
      return { projection: current, clock };
    }
    // One refresh at a time: a reader arriving during one waits for it, then looks again (the
    // refresh read the clock after the reader read its revision, or it refreshes once more).
    if (cache.refreshing === undefined) {
      const running = refresh(db, cache);
      cache.refreshing = running;
      const done = () => {
        if (cache.refreshing === running) cache.refreshing = undefined;
      };
      running.then(done, done);
    }
    await cache.refreshing;
  }
}

async function refresh(db: Kysely<LedgerSchema>, cache: Cache): Promise<void> {
  const base = cache.current;
  const clock = await readClock(db);
  if (base !== undefined && clock.generation === base.generation) {
    cache.clock = clock;
    return;
  }
  const { projection, at } = await inReadSnapshot(db, async (tx) => {
    const now = await readClock(tx);
    return { projection: await catchUp(tx, base, now), at: now };
  });
  cache.current = projection;
  cache.clock = at;
}

/** The projection at `clock`, from `base` when only in-place updates happened since. */
async function catchUp(
  tx: Kysely<LedgerSchema>,
  base: Projection | undefined,
  clock: ReadClock,
): Promise<Projection> {
  if (base !== undefined && clock.generation === base.generation) return base;
  const behind = base === undefined ? Number.POSITIVE_INFINITY : clock.generation - base.generation;
  if (base !== undefined && clock.shape <= base.generation && behind <= PROJECTION_CHANGE_WINDOW) {
    const keys = await entitiesUpdatedBetween(tx, base.generation, clock.generation);
    if (keys.length === behind) {
      const unique = [...new Set(keys)];
      const rows = await tx
        .selectFrom("entities")
        .select(ENTITY_COLUMNS)
        .where("key", "in", unique)
        .execute();
      const updated =
        rows.length === unique.length ? base.withUpdates(clock.generation, rows) : undefined;
      if (updated !== undefined) return updated;
    }
  }
  return loadProjection(tx, clock.generation);
}

async function loadProjection(tx: Kysely<LedgerSchema>, generation: number): Promise<Projection> {
  const entities = await tx
    .selectFrom("entities")
    .select(ENTITY_COLUMNS)
    .orderBy("source_path")
    .orderBy("ordinal")
    .execute();
  const dependencies = await tx
    .selectFrom("dependencies")
    .select(["work_key", "depends_on", "required"])
    .orderBy("work_key")
    .orderBy("depends_on")
    .execute();
  const notes = await tx
    .selectFrom("sources")
    .select(["path", "note"])
    .where("note", "is not", null)
    .orderBy("path")
    .execute();
  return Projection.fromRows(
    generation,
    entities,
    dependencies,
    notes.map((n) => ({ source: n.path, note: JSON.parse(n.note as string) as unknown })),
  );
}
