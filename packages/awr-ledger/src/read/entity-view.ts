import type { Kysely } from "kysely";
import { LedgerError } from "../errors.js";
import { sql } from "../internal/kysely.js";
import type { AcceptanceCriterion } from "../sources/adapters/yaml-ledger-v1.js";
import type { EntityTable, LedgerSchema } from "../storage/schema.js";
import { memoAt } from "./read-cache.js";

export interface SourceRef {
  path: string;
  line_start: number;
  line_end: number;
}

/** An entity row with its attributes parsed, as read models use it. */
export interface EntityView {
  id: string;
  kind: string;
  key: string;
  title: string;
  status: string;
  raw_status: string | null;
  summary: string | null;
  body: string;
  attributes: Record<string, unknown>;
  source: SourceRef;
}

export function toView(row: EntityTable): EntityView {
  return {
    id: row.id,
    kind: row.kind,
    key: row.key,
    title: row.title,
    status: row.status,
    raw_status: row.raw_status,
    summary: row.summary,
    body: row.body,
    attributes: JSON.parse(row.attributes) as Record<string, unknown>,
    source: {
      path: row.source_path,
      line_start: Number(row.line_start),
      line_end: Number(row.line_end),
    },
  };
}

/**
 * Entities of one kind in source order (source path, then position), memoised per project
 * revision (see read-cache.ts): the returned array and its views are shared, read-only.
 */
export function entitiesOfKind(
  db: Kysely<LedgerSchema>,
  revision: number,
  kind: string,
): Promise<readonly EntityView[]> {
  return memoAt(db, revision, `entities:${kind}`, async () => {
    const rows = await db
      .selectFrom("entities")
      .selectAll()
      .where("kind", "=", kind)
      .orderBy("source_path")
      .orderBy("ordinal")
      .execute();
    return rows.map(toView);
  });
}

/** Every entity's key and the revision that last indexed it, memoised per project revision. */
export function entityRevisions(
  db: Kysely<LedgerSchema>,
  revision: number,
): Promise<ReadonlyMap<string, number>> {
  return memoAt(db, revision, "entity-revisions", async () => {
    const rows = await db.selectFrom("entities").select(["key", "indexed_revision"]).execute();
    return new Map(rows.map((r) => [r.key, Number(r.indexed_revision)]));
  });
}

export async function requireWork(db: Kysely<LedgerSchema>, key: string): Promise<EntityView> {
  const row = await db
    .selectFrom("entities")
    .selectAll()
    .where("kind", "=", "work")
    .where("key", "=", key)
    .executeTakeFirst();
  if (row === undefined) {
    throw new LedgerError(
      "NotFound",
      `Work item "${key}" is not in the ledger. Check the id (awr status / awr ready list work), ` +
        "or reindex if it was just added.",
      { work: key },
    );
  }
  return toView(row);
}

export const acceptanceOf = (work: EntityView): AcceptanceCriterion[] =>
  (work.attributes["acceptance"] as AcceptanceCriterion[] | undefined) ?? [];
export const stringsOf = (work: EntityView, name: string): string[] =>
  (work.attributes[name] as string[] | undefined) ?? [];
export const stringOf = (work: EntityView, name: string): string | null =>
  (work.attributes[name] as string | null | undefined) ?? null;

/** A claim as reads show it (the original's fields, plus the claimed work item's key). */
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

/** Claims in force: status 'active' and not past expires_at (part 2's `claims` table). */
export async function activeClaims(
  db: Kysely<LedgerSchema>,
  now = Date.now(),
): Promise<ActiveClaim[]> {
  if (!(await tableExists(db, "claims"))) return [];
  const { rows } = await sql<ClaimRow>`
    SELECT c.id, s.agent, c.session, c.expires_at, c.work
      FROM claims c JOIN sessions s ON s.id = c.session
     WHERE c.status = 'active' AND (c.expires_at IS NULL OR c.expires_at > ${now})
     ORDER BY c.work`.execute(db);
  return rows.map(claimOf);
}

/**
 * Claims that lapsed: marked `expired` by a write, or still `active` past their expiry (reads
 * never write, so a lapse shows here before a write records its `claim.expired`). Newest first,
 * at most `limit`; only those of `work` when given.
 */
export async function expiredClaims(
  db: Kysely<LedgerSchema>,
  options: { work?: string; limit: number; now?: number },
): Promise<ActiveClaim[]> {
  if (!(await tableExists(db, "claims"))) return [];
  const now = options.now ?? Date.now();
  let query = db
    .selectFrom("claims as c")
    .innerJoin("sessions as s", "s.id", "c.session")
    .select(["c.id", "s.agent", "c.session", "c.expires_at", "c.work"])
    .where((eb) =>
      eb.or([
        eb("c.status", "=", "expired"),
        eb.and([eb("c.status", "=", "active"), eb("c.expires_at", "<=", now)]),
      ]),
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

/**
 * Every dependency of every work item, with the state of each target (`e.key` null when the
 * target is not defined), memoised per project revision: one join instead of an IN list of
 * thousands of keys.
 */
export function allDependencies(
  db: Kysely<LedgerSchema>,
  revision: number,
): Promise<ReadonlyMap<string, DependencyView[]>> {
  return memoAt(db, revision, "dependencies", async () => {
    const rows = await db
      .selectFrom("dependencies as d")
      .leftJoin("entities as e", "e.key", "d.depends_on")
      .select(["d.work_key", "d.depends_on", "d.required", "e.title", "e.status"])
      .orderBy("d.work_key")
      .orderBy("d.depends_on")
      .execute();
    return groupDependencies(rows);
  });
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

const PRIORITY_NAMES: Record<string, number> = {
  critical: 0,
  urgent: 0,
  p0: 0,
  high: 1,
  p1: 1,
  medium: 2,
  normal: 2,
  p2: 2,
  low: 3,
  p3: 3,
};

/** Sort rank of a priority value: numbers as given, common names mapped, anything else last. */
export function priorityRank(priority: unknown): number {
  if (typeof priority === "number") return priority;
  if (typeof priority === "string") return PRIORITY_NAMES[priority.toLowerCase()] ?? 50;
  return 100;
}
