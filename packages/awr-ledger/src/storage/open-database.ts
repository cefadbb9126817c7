import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import type { Dialect, Kysely } from "kysely";
import { LedgerError } from "../errors.js";
import {
  KyselyClass,
  PostgresAdapter,
  PostgresDialect,
  SqliteDialect,
  sql,
} from "../internal/kysely.js";
import { betterSqlite3Module } from "../internal/lazy-dependencies.js";
import type { Backend } from "./migration.js";
import type { LedgerSchema } from "./schema.js";
import { withStatementCache } from "./sqlite-statement-cache.js";

export interface OpenedDatabase {
  db: Kysely<LedgerSchema>;
  backend: Backend;
  /** Destroys what this module created; a caller-provided Kysely instance is not destroyed. */
  close(): Promise<void>;
}

/**
 * WAL pages after which a commit checkpoints (SQLite's default is 1,000). A journaled write
 * rewrites the same few pages (the newest index leaves, project_state, the search segments) in
 * each of its commits, and a checkpoint copies each distinct page once, so checkpointing four
 * times less often copies far fewer pages per write and syncs the database file a quarter as
 * often. The WAL grows to about 16 MiB between checkpoints.
 */
export const SQLITE_WAL_AUTOCHECKPOINT_PAGES = 4000;

/** Milliseconds a SQLite writer waits for the file's write lock before failing. */
export const SQLITE_BUSY_TIMEOUT_MS = 5000;

/**
 * Opens (creating if needed) a SQLite ledger file through better-sqlite3: WAL journal,
 * synchronous=FULL so every commit is durable, foreign keys on, and a busy timeout. Statements
 * are prepared once per SQL text and reused (withStatementCache).
 * better-sqlite3 is an optional peer: the error names the fix when it is missing.
 */
export async function openSqliteDatabase(file: string): Promise<OpenedDatabase> {
  let Database: typeof import("better-sqlite3");
  try {
    Database = betterSqlite3Module();
  } catch (cause) {
    throw new LedgerError(
      "Unsupported",
      "The SQLite backend needs the better-sqlite3 package; add it to your application's " +
        "dependencies (npm install better-sqlite3@12) or pass a Kysely instance to openLedger.",
      undefined,
      { cause },
    );
  }
  if (file !== ":memory:") mkdirSync(dirname(file), { recursive: true });
  const database = new Database(file, { timeout: SQLITE_BUSY_TIMEOUT_MS });
  database.pragma("journal_mode = WAL");
  database.pragma("synchronous = FULL");
  database.pragma(`wal_autocheckpoint = ${SQLITE_WAL_AUTOCHECKPOINT_PAGES}`);
  database.pragma("foreign_keys = ON");
  database.pragma(`busy_timeout = ${SQLITE_BUSY_TIMEOUT_MS}`);
  const db = new KyselyClass<LedgerSchema>({
    dialect: new SqliteDialect({ database: withStatementCache(database) }),
  });
  ownSqlite.add(db);
  return { db, backend: "sqlite", close: () => db.destroy() };
}

/** Kysely instances made by openSqliteDatabase: one connection, set to synchronous=FULL here. */
const ownSqlite = new WeakSet<object>();

/**
 * True for a Kysely instance that openSqliteDatabase made (also when a caller passes it back to
 * openLedger): its single connection runs synchronous=FULL, so the project-lock lease rows may
 * be committed without an fsync and FULL restored after (see project-lock.ts). False for any
 * other instance, whose settings are its owner's: its lease commits stay as configured.
 */
export function isOwnSqliteDatabase(db: object): boolean {
  return ownSqlite.has(db);
}

export interface PostgresOptions {
  /** Schema that holds this project's ledger; created if missing. Default: the server's default. */
  schema?: string | undefined;
  /** Pool size; at least 2 because withProjectLock holds one connection while writes run. */
  poolMax?: number | undefined;
}

const SCHEMA_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

/** Opens a PostgreSQL ledger through pg (an optional peer). The URL never comes from a file. */
export async function openPostgresDatabase(
  url: string,
  options: PostgresOptions = {},
): Promise<OpenedDatabase> {
  let pg: typeof import("pg");
  try {
    const mod = await import("pg");
    pg = (mod as unknown as { default?: typeof import("pg") }).default ?? mod;
  } catch (cause) {
    throw new LedgerError(
      "Unsupported",
      "The PostgreSQL backend needs the pg package; add it to your application's dependencies " +
        "(npm install pg@8) or pass a Kysely instance to openLedger.",
      undefined,
      { cause },
    );
  }
  const schema = options.schema;
  if (schema !== undefined && !SCHEMA_NAME.test(schema)) {
    throw new LedgerError(
      "InvalidInput",
      `PostgreSQL schema name "${schema}" is not a plain identifier; use letters, digits and _.`,
    );
  }
  const pool = new pg.Pool({
    connectionString: url,
    max: Math.max(2, options.poolMax ?? 8),
    ...(schema === undefined ? {} : { options: `-c search_path=${schema}` }),
    // int8 (counts, epoch milliseconds) as numbers, for this pool only.
    types: {
      getTypeParser: ((oid: number, format?: "text" | "binary") =>
        oid === 20
          ? (value: string) => Number(value)
          : pg.types.getTypeParser(oid, format ?? "text")) as typeof pg.types.getTypeParser,
    },
  });
  const db = new KyselyClass<LedgerSchema>({ dialect: new PostgresDialect({ pool }) });
  try {
    if (schema !== undefined) await sql.raw(`CREATE SCHEMA IF NOT EXISTS "${schema}"`).execute(db);
  } catch (cause) {
    await db.destroy();
    throw new LedgerError(
      "Unsupported",
      `Cannot reach the PostgreSQL ledger: ${(cause as Error).message}. Check the URL in the ` +
        "environment variable named by [storage] url_env and that the server is running.",
      undefined,
      { cause },
    );
  }
  return { db, backend: "postgres", close: () => db.destroy() };
}

/**
 * Which SQL family a caller-provided Kysely instance (or dialect) speaks: PostgreSQL when its
 * adapter is (or extends) kysely's PostgresAdapter, else SQLite. The caller's instance may come
 * from another copy of kysely (its ES module build; the ledger loads the CommonJS one), whose
 * PostgresAdapter is a different class object, so a class named PostgresAdapter anywhere in the
 * adapter's prototype chain counts as well.
 */
// biome-ignore lint/suspicious/noExplicitAny: any schema.
export function detectBackend(db: Kysely<any>): Backend {
  const adapter = db.getExecutor().adapter;
  if (adapter instanceof PostgresAdapter) return "postgres";
  for (
    let proto = Object.getPrototypeOf(adapter);
    proto !== null;
    proto = Object.getPrototypeOf(proto)
  ) {
    if ((proto as { constructor?: { name?: unknown } }).constructor?.name === "PostgresAdapter") {
      return "postgres";
    }
  }
  return "sqlite";
}

export function kyselyFromDialect(dialect: Dialect): Kysely<LedgerSchema> {
  return new KyselyClass<LedgerSchema>({ dialect });
}
