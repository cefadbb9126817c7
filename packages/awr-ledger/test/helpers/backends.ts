import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Backend } from "@awr/awr-ledger";
import {
  type LedgerSchema,
  migrateToLatest,
  type OpenedDatabase,
  openPostgresDatabase,
  openSqliteDatabase,
  type StorageDialect,
  storageDialect,
} from "@awr/awr-ledger/testing";
import type { Kysely } from "kysely";
import { ulid } from "ulid";

/**
 * The ledger suite runs against both backends. PostgreSQL needs AWR_TEST_DATABASE_URL; without
 * it the PostgreSQL cases are left out locally, but under CI=true a missing URL fails the run.
 */
export const PG_URL = process.env.AWR_TEST_DATABASE_URL;

if (PG_URL === undefined && process.env.CI === "true") {
  throw new Error("AWR_TEST_DATABASE_URL is not set under CI=true: the PostgreSQL suite must run");
}

export const BACKENDS: readonly Backend[] =
  PG_URL === undefined ? ["sqlite"] : ["sqlite", "postgres"];

export interface TestDatabase {
  backend: Backend;
  dialect: StorageDialect;
  db: Kysely<LedgerSchema>;
  /** SQLite file path, or the PostgreSQL schema name. */
  location: string;
  /** For PostgreSQL: the URL and schema, so a child process can open the same database. */
  url?: string;
  schema?: string;
  close(): Promise<void>;
}

/** A fresh, empty database (a new SQLite file, or a new PostgreSQL schema) for one test. */
export function freshDatabase(backend: Backend): Promise<TestDatabase> {
  return storageDialect(backend).choose({ sqlite: freshSqlite, postgres: freshPostgres })();
}

async function freshSqlite(): Promise<TestDatabase> {
  const dir = mkdtempSync(join(tmpdir(), "awr-ledger-db-"));
  const file = join(dir, "state.db");
  const opened = await openSqliteDatabase(file);
  return {
    backend: "sqlite",
    dialect: opened.dialect,
    db: opened.db,
    location: file,
    async close() {
      await opened.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function freshPostgres(): Promise<TestDatabase> {
  const schema = `awr_t_${ulid().toLowerCase()}`;
  const url = PG_URL as string;
  const opened = await openPostgresDatabase(url, { schema, poolMax: 4 });
  return {
    backend: "postgres",
    dialect: opened.dialect,
    db: opened.db,
    location: schema,
    url,
    schema,
    async close() {
      const { sql } = await import("kysely");
      await sql.raw(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`).execute(opened.db);
      await opened.close();
    },
  };
}

/** The columns of a test's project row that tests choose; the rest are those of a new project. */
export interface ProjectRow {
  project_id: string;
  name: string;
  created_at: string;
  current_branch_id?: null;
}

/** The project row a store of `row.project_id` needs, at revision 0 with no manifest fingerprint. */
export async function insertProjectRow(database: TestDatabase, row: ProjectRow): Promise<void> {
  await database.db
    .insertInto("project_state")
    .values({ revision: 0, manifest_fingerprint: null, ...row })
    .execute();
}

/** The latest schema and then the project row (see insertProjectRow) in `database`. */
export async function migrateWithProject(database: TestDatabase, row: ProjectRow): Promise<void> {
  await migrateToLatest(database.db, database.dialect);
  await insertProjectRow(database, row);
}

/** A second connection (pool) to a test database, e.g. as a restarted process would open it. */
export function reopenDatabase(database: TestDatabase): Promise<OpenedDatabase> {
  return database.dialect.choose({
    sqlite: () => openSqliteDatabase(database.location),
    postgres: () => openPostgresDatabase(database.url ?? "", { schema: database.schema }),
  })();
}

/**
 * The `[storage]` table a test manifest needs to keep its ledger in a fresh database of `backend`
 * (for PostgreSQL in `schema`, on the test server); empty for the project's own SQLite file.
 */
export function storageManifestTable(backend: Backend, schema: string): string {
  return storageDialect(backend).connectsByUrl
    ? `\n[storage]\nbackend = "${backend}"\nurl_env = "AWR_TEST_DATABASE_URL"\nschema = "${schema}"\n`
    : "";
}

/** Drops the PostgreSQL schema a storageManifestTable named; nothing to drop for SQLite. */
export async function dropServerSchema(
  db: Kysely<LedgerSchema>,
  backend: Backend,
  schema: string,
): Promise<void> {
  if (!storageDialect(backend).connectsByUrl) return;
  const { sql } = await import("kysely");
  await sql.raw(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`).execute(db);
}

/** A fresh temporary directory for a project root; removed by the returned function. */
export function tempRoot(prefix = "awr-ledger-root-"): { root: string; remove(): void } {
  const root = mkdtempSync(join(tmpdir(), prefix));
  return { root, remove: () => rmSync(root, { recursive: true, force: true }) };
}
