import { statSync } from "node:fs";
import type { Kysely } from "kysely";
import { LedgerError } from "../../errors.js";
import { KyselyClass, SqliteDialect, sql } from "../../internal/kysely.js";
import { openBetterSqlite3 } from "../../internal/lazy-dependencies.js";
import type { DatabaseDoctor, DatabaseReport, ReportBasis } from "../database-doctor.js";
import type { StorageDialect } from "../dialect.js";
import { migrateToLatest } from "../migrator.js";
import type { LedgerSchema } from "../schema.js";
import { openSqliteKysely, SQLITE_BUSY_TIMEOUT_MS } from "./open-sqlite.js";

const firstValue = (row: Record<string, unknown> | undefined): unknown =>
  row === undefined ? undefined : Object.values(row)[0];

async function pragma(db: Kysely<LedgerSchema>, name: string): Promise<unknown[]> {
  const { rows } = await sql.raw<Record<string, unknown>>(`PRAGMA ${name}`).execute(db);
  return rows.map(firstValue);
}

/**
 * A read-only connection to another SQLite ledger file (`awr doctor --database PATH`), set up
 * like the ledger's own (busy timeout, foreign keys, recursive triggers) so the pragmas it
 * reports mean the same. The file must exist: nothing is created.
 */
function openForInspection(file: string): Kysely<LedgerSchema> {
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
async function report(
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

let expectedObjects: Promise<Map<string, SqliteObject>> | undefined;

/** What a fresh SQLite ledger holds after every migration: built once, in memory. */
function expectedSqliteObjects(dialect: StorageDialect): Promise<Map<string, SqliteObject>> {
  expectedObjects ??= (async () => {
    const scratch = await openSqliteKysely(":memory:");
    try {
      await migrateToLatest(scratch, dialect);
      return await sqliteObjects(scratch);
    } finally {
      await scratch.destroy();
    }
  })();
  return expectedObjects;
}

/** Every owned object compared by type, table and SQL text with a fresh ledger's. */
async function schemaIssues(db: Kysely<LedgerSchema>, dialect: StorageDialect): Promise<string[]> {
  const [expected, observed] = await Promise.all([
    expectedSqliteObjects(dialect),
    sqliteObjects(db),
  ]);
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

/** The doctor on SQLite; `dialect` (SQLite's) migrates the fresh ledger it compares with. */
export function sqliteDoctor(dialect: () => StorageDialect): DatabaseDoctor {
  return {
    report,
    schemaIssues: (db) => schemaIssues(db, dialect()),
    limitations: [],
    openFile: openForInspection,
  };
}
