import type { Kysely } from "kysely";
import { LedgerError } from "../../errors.js";
import { sql } from "../../internal/kysely.js";
import type { DatabaseDoctor, DatabaseReport, ReportBasis } from "../database-doctor.js";
import type { Migration } from "../migration.js";
import { MIGRATIONS } from "../migrations/index.js";
import type { LedgerSchema } from "../schema.js";

const LIMITATION =
  "PostgreSQL has no page-level integrity check: integrity reports whether every owned table could be read in the snapshot, and owned objects are compared by name, not by definition.";

/** Every owned table answers a read inside the snapshot (PostgreSQL's integrity observation). */
async function tablesReadable(db: Kysely<LedgerSchema>): Promise<string[]> {
  const { rows } = await sql<{ name: string }>`
    SELECT tablename AS name FROM pg_tables WHERE schemaname = current_schema()
     ORDER BY tablename`.execute(db);
  const problems: string[] = [];
  for (const { name } of rows) {
    try {
      await sql.raw(`SELECT 1 FROM "${name.replace(/"/g, '""')}" LIMIT 1`).execute(db);
    } catch (error) {
      problems.push(`table ${name} cannot be read: ${(error as Error).message}`);
    }
  }
  return problems.length === 0 ? ["ok"] : problems;
}

/** PostgreSQL: every owned table readable (its catalog has no integrity check to run). */
async function report(
  db: Kysely<LedgerSchema>,
  { schemaVersion, read, issues }: ReportBasis,
): Promise<Omit<DatabaseReport, "ok">> {
  return {
    application_id: null,
    schema_version: schemaVersion,
    sqlite_version: null,
    journal_mode: null,
    // PostgreSQL always enforces foreign keys; the ledger declares none, so none can be violated.
    foreign_keys: true,
    busy_timeout_ms: null,
    migrations: read,
    integrity: await tablesReadable(db),
    foreign_key_violations: 0,
    schema_issues: issues,
  };
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
async function schemaIssues(db: Kysely<LedgerSchema>): Promise<string[]> {
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

/** The doctor on PostgreSQL: by name, since its catalog keeps no statement text to compare. */
export const POSTGRES_DOCTOR: DatabaseDoctor = {
  report,
  schemaIssues,
  limitations: [LIMITATION],
  openFile() {
    throw new LedgerError(
      "InvalidInput",
      "--database names a SQLite file, but this project's ledger is PostgreSQL (the manifest's [storage]); omit --database to inspect it",
      { field: "database" },
    );
  },
};
