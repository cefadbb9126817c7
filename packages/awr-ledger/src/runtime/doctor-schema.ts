import type { Kysely } from "kysely";
import { sql } from "../internal/kysely.js";
import type { StorageDialect } from "../storage/dialect.js";
import type { Migration } from "../storage/migration.js";
import { MIGRATIONS } from "../storage/migrations/index.js";
import { migrateToLatest } from "../storage/migrator.js";
import type { LedgerSchema } from "../storage/schema.js";
import { openSqliteDatabase } from "../storage/sqlite/open-sqlite.js";

/**
 * The doctor's comparison of the owned schema with what this build's migrations create
 * (docs/design/work-branches.md, "awr doctor"). Each issue is a line naming the object, never
 * its SQL: `missing index claims_one_active`, `definition mismatch for trigger …`. Extra objects
 * (a diagnostic index someone added) are allowed. Nothing is repaired.
 */

/** One owned object: its type (table, index, trigger, …), table and SQL text. */
interface SqliteObject {
  type: string;
  table: string;
  sql: string;
}

async function sqliteObjects(db: Kysely<LedgerSchema>): Promise<Map<string, SqliteObject>> {
  const { rows } = await sql<{ name: string; type: string; tbl_name: string; sql: string }>`
    SELECT name, type, tbl_name, sql FROM sqlite_master
     WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite_%' ORDER BY name`.execute(db);
  return new Map(rows.map((r) => [r.name, { type: r.type, table: r.tbl_name, sql: r.sql.trim() }]));
}

let expectedSqlite: Promise<Map<string, SqliteObject>> | undefined;

/** What a fresh SQLite ledger holds after every migration: built once, in memory. */
function expectedSqliteObjects(): Promise<Map<string, SqliteObject>> {
  expectedSqlite ??= (async () => {
    const scratch = await openSqliteDatabase(":memory:");
    try {
      await migrateToLatest(scratch.db, scratch.dialect);
      return await sqliteObjects(scratch.db);
    } finally {
      await scratch.close();
    }
  })();
  return expectedSqlite;
}

async function sqliteIssues(db: Kysely<LedgerSchema>): Promise<string[]> {
  const [expected, observed] = await Promise.all([expectedSqliteObjects(), sqliteObjects(db)]);
  const issues: string[] = [];
  for (const [name, want] of expected) {
    const have = observed.get(name);
    if (have === undefined) issues.push(`missing ${want.type} ${name}`);
    else if (have.type !== want.type || have.table !== want.table || have.sql !== want.sql) {
      issues.push(`definition mismatch for ${want.type} ${name}`);
    }
  }
  return issues;
}

/** The objects PostgreSQL migrations create, by kind, read from their statements in order. */
interface PostgresObjects {
  table: Set<string>;
  column: Set<string>;
  index: Set<string>;
  trigger: Set<string>;
  function: Set<string>;
}

const CREATE =
  /^\s*CREATE\s+(?:OR\s+REPLACE\s+)?(?:UNIQUE\s+)?(TABLE|INDEX|TRIGGER|FUNCTION)\s+(?:IF\s+NOT\s+EXISTS\s+)?(\w+)/i;
const DROP = /^\s*DROP\s+(TABLE|INDEX|TRIGGER|FUNCTION)\s+(?:IF\s+EXISTS\s+)?(\w+)/i;
const COLUMN =
  /^\s*ALTER\s+TABLE\s+(\w+)\s+(ADD|DROP)\s+COLUMN\s+(?:IF\s+(?:NOT\s+)?EXISTS\s+)?(\w+)/i;

export function expectedPostgresObjects(
  migrations: readonly Migration[] = MIGRATIONS,
): PostgresObjects {
  const objects: PostgresObjects = {
    table: new Set(["awr_migrations"]),
    column: new Set(),
    index: new Set(),
    trigger: new Set(),
    function: new Set(),
  };
  for (const migration of [...migrations].sort((a, b) => a.version - b.version)) {
    for (const statement of migration.statements.postgres) {
      const created = CREATE.exec(statement);
      const dropped = DROP.exec(statement);
      const column = COLUMN.exec(statement);
      if (created !== null) {
        objects[(created[1] as string).toLowerCase() as keyof PostgresObjects].add(
          (created[2] as string).toLowerCase(),
        );
      } else if (dropped !== null) {
        objects[(dropped[1] as string).toLowerCase() as keyof PostgresObjects].delete(
          (dropped[2] as string).toLowerCase(),
        );
      } else if (column !== null) {
        const name = `${column[1]}.${column[3]}`.toLowerCase();
        if ((column[2] as string).toUpperCase() === "ADD") objects.column.add(name);
        else objects.column.delete(name);
      }
    }
  }
  return objects;
}

/** PostgreSQL: every owned table, added column, index, trigger and function of the schema, by name. */
async function postgresIssues(db: Kysely<LedgerSchema>): Promise<string[]> {
  const expected = expectedPostgresObjects();
  const names = async (query: ReturnType<typeof sql<{ name: string }>>) =>
    new Set((await query.execute(db)).rows.map((r) => r.name));
  const observed: Record<keyof PostgresObjects, Set<string>> = {
    table: await names(sql`SELECT tablename AS name FROM pg_tables
                            WHERE schemaname = current_schema()`),
    column: await names(sql`SELECT table_name || '.' || column_name AS name
                              FROM information_schema.columns
                             WHERE table_schema = current_schema()`),
    index: await names(sql`SELECT indexname AS name FROM pg_indexes
                            WHERE schemaname = current_schema()`),
    trigger: await names(sql`SELECT t.tgname AS name FROM pg_trigger t
                               JOIN pg_class c ON c.oid = t.tgrelid
                               JOIN pg_namespace n ON n.oid = c.relnamespace
                              WHERE n.nspname = current_schema() AND NOT t.tgisinternal`),
    function: await names(sql`SELECT p.proname AS name FROM pg_proc p
                                JOIN pg_namespace n ON n.oid = p.pronamespace
                               WHERE n.nspname = current_schema()`),
  };
  const issues: string[] = [];
  for (const kind of ["table", "column", "index", "trigger", "function"] as const) {
    for (const name of [...expected[kind]].sort()) {
      if (!observed[kind].has(name)) issues.push(`missing ${kind} ${name}`);
    }
  }
  return issues;
}

/** The owned-schema issues of `db`, a ledger on `dialect`'s database. */
export function schemaIssues(db: Kysely<LedgerSchema>, dialect: StorageDialect): Promise<string[]> {
  return dialect.choose({ sqlite: sqliteIssues, postgres: postgresIssues })(db);
}
