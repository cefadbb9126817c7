import type { Kysely } from "kysely";
import { claimInForceSql, claimLapsedSql } from "../claims/claim-in-force.js";
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

/** A claim as reads show it, with the claimed work item's key. */
export interface ActiveClaim {
  id: string;
  /** The claiming session's agent. */
  agent_id: string;
  session_id: string;
  /** Milliseconds since the epoch, or null without a ttl. */
  expires_at: number | null;
  work: string;
}

const tableCache = new WeakMap<object, Map<string, boolean>>();

/** Whether an optional (runtime) table exists; cached per database handle once true. */
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

interface ClaimRow {
  id: string;
  agent: string;
  session: string;
  expires_at: number | string | null;
  work: string;
}

function claimOf(row: ClaimRow): ActiveClaim {
  return {
    id: row.id,
    agent_id: row.agent,
    session_id: row.session,
    expires_at: row.expires_at === null ? null : Number(row.expires_at),
    work: row.work,
  };
}

/** Claims of `branch` (null = main), with their session's agent. */
function claimsOnBranch(db: Kysely<LedgerSchema>, branch: string | null) {
  return db
    .selectFrom("claims as c")
    .innerJoin("sessions as s", "s.id", "c.session")
    .select(["c.id", "s.agent", "c.session", "c.expires_at", "c.work"])
    .where((eb) => (branch === null ? eb("c.branch", "is", null) : eb("c.branch", "=", branch)));
}

/**
 * Claims in force on `branch` (null = main) at `now` (claimInForce; the runtime's `claims`
 * table). Claims of other branches are not counted.
 */
export async function activeClaims(
  db: Kysely<LedgerSchema>,
  branch: string | null,
  now = Date.now(),
): Promise<ActiveClaim[]> {
  if (!(await tableExists(db, "claims"))) return [];
  const rows = await claimsOnBranch(db, branch)
    .where(claimInForceSql(now, "c"))
    .orderBy("c.work")
    .execute();
  return rows.map(claimOf);
}

/**
 * Claims that lapsed: marked `expired` by a write, or still `active` past their expiry (reads
 * never write, so a lapse shows here before a write records its `claim.expired`). Newest first,
 * at most `limit`; only those of `work` when given; only those of `branch` (null = main).
 */
export async function expiredClaims(
  db: Kysely<LedgerSchema>,
  options: { work?: string; limit: number; now?: number; branch: string | null },
): Promise<ActiveClaim[]> {
  if (!(await tableExists(db, "claims"))) return [];
  const now = options.now ?? Date.now();
  let query = claimsOnBranch(db, options.branch).where((eb) =>
    eb.or([eb("c.status", "=", "expired"), claimLapsedSql(now, "c")]),
  );
  if (options.work !== undefined) query = query.where("c.work", "=", options.work);
  const rows = await query
    .orderBy("c.acquired_revision", "desc")
    .orderBy("c.id", "desc")
    .limit(options.limit)
    .execute();
  return rows.map(claimOf);
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
