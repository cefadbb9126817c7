import { statSync } from "node:fs";
import type { Kysely } from "kysely";
import { LedgerError } from "../errors.js";
import { KyselyClass, SqliteDialect, sql } from "../internal/kysely.js";
import { openBetterSqlite3 } from "../internal/lazy-dependencies.js";
import type { StorageDialect } from "../storage/dialect.js";
import { MIGRATIONS } from "../storage/migrations/index.js";
import type { LedgerSchema } from "../storage/schema.js";
import { SQLITE_BUSY_TIMEOUT_MS } from "../storage/sqlite/open-sqlite.js";
import { schemaIssues } from "./doctor-schema.js";

/**
 * The database part of `awr doctor` (docs/design/work-branches.md, "awr doctor"): the original's
 * report fields, read without creating, migrating or repairing anything. PostgreSQL has no page
 * check and no connection pragmas: those fields are null there, `integrity` says whether every
 * owned table could be read, and the report's `limitations` say so.
 */
export interface DatabaseReport {
  ok: boolean;
  application_id: number | null;
  schema_version: number;
  sqlite_version: string | null;
  journal_mode: string | null;
  foreign_keys: boolean;
  busy_timeout_ms: number | null;
  /** `applied_at` in milliseconds since the epoch, as the original reports it. */
  migrations: { version: number; name: string; applied_at: number }[];
  integrity: string[];
  foreign_key_violations: number;
  schema_issues: string[];
  /** Present when SQLite's foreign-key check could not run (then the count proves nothing). */
  foreign_key_check_error?: string;
}

const firstValue = (row: Record<string, unknown> | undefined): unknown =>
  row === undefined ? undefined : Object.values(row)[0];

async function pragma(db: Kysely<LedgerSchema>, name: string): Promise<unknown[]> {
  const { rows } = await sql.raw<Record<string, unknown>>(`PRAGMA ${name}`).execute(db);
  return rows.map(firstValue);
}

async function readMigrations(
  db: Kysely<LedgerSchema>,
): Promise<DatabaseReport["migrations"] | undefined> {
  try {
    const rows = await db
      .selectFrom("awr_migrations")
      .select(["version", "name", "applied_at"])
      .orderBy("version")
      .execute();
    return rows.map((r) => ({
      version: Number(r.version),
      name: r.name,
      applied_at: Date.parse(r.applied_at),
    }));
  } catch {
    return undefined;
  }
}

/** The migration catalog is exactly this build's steps 1..n, by version and name. */
function catalogMatches(migrations: DatabaseReport["migrations"]): boolean {
  return (
    migrations.length === MIGRATIONS.length &&
    migrations.every(
      (m, i) => m.version === MIGRATIONS[i]?.version && m.name === MIGRATIONS[i]?.name,
    )
  );
}

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

/**
 * Inspects the ledger database `db` (already inside one read snapshot). Throws Storage when it is
 * not an AWR ledger at all (no migration catalog and no project state).
 */
export async function inspectDatabase(
  db: Kysely<LedgerSchema>,
  dialect: StorageDialect,
): Promise<DatabaseReport> {
  const read = await readMigrations(db);
  if (read === undefined) {
    throw new LedgerError(
      "Storage",
      "not an AWR database: it has no awr_migrations table; check the path (or the manifest's [storage]) names this project's ledger",
    );
  }
  const issues = await schemaIssues(db, dialect);
  const catalogOk = catalogMatches(read);
  if (!catalogOk) issues.push("migration catalog does not match the supported schema");
  const schemaVersion = read.reduce((max, m) => Math.max(max, m.version), 0);
  const latest = MIGRATIONS.length;
  if (schemaVersion > latest) issues.unshift(`unsupported schema version ${schemaVersion}`);
  const report = await dialect.choose({
    sqlite: sqliteReport,
    postgres: postgresReport,
  })(db, { schemaVersion, read, issues });
  const ok =
    report.integrity.length === 1 &&
    report.integrity[0] === "ok" &&
    report.foreign_key_violations === 0 &&
    report.foreign_key_check_error === undefined &&
    schemaVersion === latest &&
    issues.length === 0;
  return { ok, ...report };
}

/**
 * A read-only connection to another SQLite ledger file (`awr doctor --database PATH`), set up
 * like the ledger's own (busy timeout, foreign keys, recursive triggers) so the pragmas it
 * reports mean the same. The file must exist: nothing is created.
 */
export function openSqliteForInspection(file: string): Kysely<LedgerSchema> {
  const info = statSync(file, { throwIfNoEntry: false });
  if (info === undefined || !info.isFile()) {
    throw new LedgerError(
      "NotFound",
      `AWR database: ${file} is not a file; check --database`,
      { database: file },
      {
        next: "Give --database the path of a SQLite ledger file (relative to the working directory), or drop it to inspect this project's own ledger.",
      },
    );
  }
  let database: import("better-sqlite3").Database;
  try {
    database = openBetterSqlite3(file, {
      readonly: true,
      fileMustExist: true,
      timeout: SQLITE_BUSY_TIMEOUT_MS,
    });
    database.pragma(`busy_timeout = ${SQLITE_BUSY_TIMEOUT_MS}`);
    database.pragma("foreign_keys = ON");
    database.pragma("recursive_triggers = ON");
  } catch (cause) {
    throw new LedgerError(
      "Storage",
      `${file} cannot be opened as a SQLite database: ${(cause as Error).message}`,
      { database: file },
      { cause },
    );
  }
  return new KyselyClass<LedgerSchema>({ dialect: new SqliteDialect({ database }) });
}

interface ReportBasis {
  schemaVersion: number;
  read: DatabaseReport["migrations"];
  issues: string[];
}

/**
 * Makes every FTS5 table of the schema read its index structure afresh. SQLite's integrity check
 * of an FTS5 table uses the structure the connection cached when it last read that table, without
 * asking whether another connection has written since, and reports a healthy index as
 * `fts5: checksum mismatch` once one has (SQLite 3.53; a ledger kept open by a long-running
 * process while another process writes). Opening a cursor on the table is what revalidates
 * that cache, so each table gets a one-row lookup first, in the same snapshot. A table too damaged
 * to open is left to the integrity check, which then names the damage.
 */
async function refreshFullTextStructures(db: Kysely<LedgerSchema>): Promise<void> {
  let tables: { name: string }[];
  try {
    ({ rows: tables } = await sql<{ name: string }>`
      SELECT name FROM sqlite_master
       WHERE type = 'table' AND sql LIKE 'CREATE VIRTUAL TABLE % USING fts5%'`.execute(db));
  } catch {
    return;
  }
  for (const { name } of tables) {
    try {
      await sql`SELECT 1 FROM ${sql.table(name)} WHERE rowid = -1`.execute(db);
    } catch {
      // The integrity check below reports what is wrong with this table.
    }
  }
}

/** SQLite's integrity, foreign-key and pragma checks. */
async function sqliteReport(
  db: Kysely<LedgerSchema>,
  { schemaVersion, read, issues }: ReportBasis,
): Promise<Omit<DatabaseReport, "ok">> {
  await refreshFullTextStructures(db);
  const integrity = (await pragma(db, "integrity_check")).map(String);
  let violations = 0;
  let checkError: string | undefined;
  try {
    violations = (await pragma(db, "foreign_key_check")).length;
  } catch {
    checkError = "foreign-key check could not run for this schema";
  }
  return {
    application_id: Number((await pragma(db, "application_id"))[0] ?? 0),
    schema_version: schemaVersion,
    sqlite_version: String(
      firstValue((await sql`SELECT sqlite_version() AS v`.execute(db)).rows[0] as never),
    ),
    journal_mode: String((await pragma(db, "journal_mode"))[0]),
    foreign_keys: Number((await pragma(db, "foreign_keys"))[0]) === 1,
    busy_timeout_ms: Number((await pragma(db, "busy_timeout"))[0]),
    migrations: read,
    integrity,
    foreign_key_violations: violations,
    schema_issues: issues,
    ...(checkError === undefined ? {} : { foreign_key_check_error: checkError }),
  };
}

/** PostgreSQL: every owned table readable (its catalog has no integrity check to run). */
async function postgresReport(
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
