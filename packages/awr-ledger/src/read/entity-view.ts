import type { Kysely } from "kysely";
import { LedgerError } from "../errors.js";
import { sql } from "../internal/kysely.js";
import type { AcceptanceCriterion } from "../sources/adapters/yaml-ledger-v1.js";
import type { LedgerSchema } from "../storage/schema.js";
import { ENTITY_COLUMNS, type EntityView, toView } from "./entity-row.js";
import type { Projection } from "./projection.js";
import { projectionAt } from "./projection-cache.js";

export { type EntityView, type SourceRef, toView } from "./entity-row.js";

/**
 * Entities of one kind in source order (source path, then position), from the projection as of
 * `revision` (projection-cache.ts): the returned array and its views are shared, read-only.
 */
export async function entitiesOfKind(
  db: Kysely<LedgerSchema>,
  revision: number,
  kind: string,
): Promise<readonly EntityView[]> {
  return (await projectionAt(db, revision)).ofKind(kind);
}

/** Every entity's key and the revision that last indexed it, as of `revision` (shared, read-only). */
export async function entityRevisions(
  db: Kysely<LedgerSchema>,
  revision: number,
): Promise<ReadonlyMap<string, number>> {
  return (await projectionAt(db, revision)).revisions;
}

export async function requireWork(db: Kysely<LedgerSchema>, key: string): Promise<EntityView> {
  const row = await db
    .selectFrom("entities")
    .select(ENTITY_COLUMNS)
    .where("kind", "=", "work")
    .where("key", "=", key)
    .executeTakeFirst();
  if (row === undefined) throw workNotFound(key);
  return toView(row);
}

export function workNotFound(key: string): LedgerError {
  return new LedgerError(
    "NotFound",
    `Work item "${key}" is not in the ledger. Check the id (awr status / awr ready list work), ` +
      "or reindex if it was just added.",
    { work: key },
  );
}

export const acceptanceOf = (work: EntityView): AcceptanceCriterion[] =>
  (work.attributes["acceptance"] as AcceptanceCriterion[] | undefined) ?? [];
export const stringsOf = (work: EntityView, name: string): string[] =>
  (work.attributes[name] as string[] | undefined) ?? [];
export const stringOf = (work: EntityView, name: string): string | null =>
  (work.attributes[name] as string | null | undefined) ?? null;

export interface ActiveClaim {
  work: string;
  session: string;
  expires_at: number | null;
}

const tableCache = new WeakMap<object, Map<string, boolean>>();

/** Whether an optional (part 2) table exists; cached per database handle once true. */
export async function tableExists(db: Kysely<LedgerSchema>, name: string): Promise<boolean> {
  let cache = tableCache.get(db);
  if (cache === undefined) {
    cache = new Map();
    tableCache.set(db, cache);
  }
  if (cache.get(name) === true) return true;
  const { rows } = await sql<{
    n: number;
  }>`SELECT 1 AS n FROM awr_migrations WHERE version >= 2`.execute(db);
  let exists = rows.length > 0;
  if (!exists) {
    try {
      await sql`SELECT 1 FROM ${sql.table(name)} WHERE 1 = 0`.execute(db);
      exists = true;
    } catch {
      exists = false;
    }
  }
  if (exists) cache.set(name, true);
  return exists;
}

/** Claims in force: status 'active' and not past expires_at (part 2's `claims` table). */
export async function activeClaims(
  db: Kysely<LedgerSchema>,
  now = Date.now(),
): Promise<ActiveClaim[]> {
  if (!(await tableExists(db, "claims"))) return [];
  const { rows } = await sql<ActiveClaim>`
    SELECT work, session, expires_at FROM claims
    WHERE status = 'active' AND (expires_at IS NULL OR expires_at > ${now})
    ORDER BY work`.execute(db);
  return rows.map((r) => ({
    work: r.work,
    session: r.session,
    expires_at: r.expires_at === null ? null : Number(r.expires_at),
  }));
}

/** The claim in force on one work item, if any (at most one is active per item). */
export async function activeClaimOn(
  db: Kysely<LedgerSchema>,
  work: string,
  now = Date.now(),
): Promise<ActiveClaim | undefined> {
  if (!(await tableExists(db, "claims"))) return undefined;
  const { rows } = await sql<ActiveClaim>`
    SELECT work, session, expires_at FROM claims
    WHERE work = ${work} AND status = 'active' AND (expires_at IS NULL OR expires_at > ${now})`.execute(
    db,
  );
  const row = rows[0];
  return row === undefined
    ? undefined
    : {
        work: row.work,
        session: row.session,
        expires_at: row.expires_at === null ? null : Number(row.expires_at),
      };
}

export interface DependencyView {
  work: string;
  title: string | null;
  status: string;
  required: boolean;
  satisfied: boolean;
}

/** Dependencies of the given work items, with the state of each target. */
export async function dependenciesOf(
  db: Kysely<LedgerSchema>,
  keys: readonly string[],
): Promise<Map<string, DependencyView[]>> {
  if (keys.length === 0) return new Map();
  const rows = await db
    .selectFrom("dependencies as d")
    .leftJoin("entities as e", "e.key", "d.depends_on")
    .select(["d.work_key", "d.depends_on", "d.required", "e.title", "e.status"])
    .where("d.work_key", "in", keys)
    .orderBy("d.work_key")
    .orderBy("d.depends_on")
    .execute();
  return groupDependencies(rows);
}

function groupDependencies(
  rows: readonly {
    work_key: string;
    depends_on: string;
    required: number;
    title: string | null;
    status: string | null;
  }[],
): Map<string, DependencyView[]> {
  const result = new Map<string, DependencyView[]>();
  for (const row of rows) {
    const list = result.get(row.work_key) ?? [];
    const status = row.status ?? "missing";
    list.push({
      work: row.depends_on,
      title: row.title ?? null,
      status,
      required: Number(row.required) === 1,
      satisfied: status === "completed",
    });
    result.set(row.work_key, list);
  }
  return result;
}

/** A work item's dependencies with the state of each target, from the projection. */
export function dependencyViews(projection: Projection, work: string): DependencyView[] {
  return (projection.dependencies.get(work) ?? []).map((dep) => {
    const target = projection.entity(dep.target);
    const status = target?.status ?? "missing";
    return {
      work: dep.target,
      title: target?.title ?? null,
      status,
      required: dep.required,
      satisfied: status === "completed",
    };
  });
}
