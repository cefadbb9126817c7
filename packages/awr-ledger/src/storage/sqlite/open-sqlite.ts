import { mkdirSync } from "node:fs";
import { basename, dirname } from "node:path";
import type { Kysely, SqliteStatement } from "kysely";
import { LedgerError } from "../../errors.js";
import { KyselyClass, SqliteDialect } from "../../internal/kysely.js";
import { betterSqlite3Module, openBetterSqlite3 } from "../../internal/lazy-dependencies.js";
import type { LedgerSchema } from "../schema.js";
import { type PreparingDatabase, withStatementCache } from "../sqlite-statement-cache.js";
import { rememberOwnSqlite } from "./held-connection.js";

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
 * Failures that mean this process may not write the ledger's files: SQLite's read-only results
 * (a read-only database file, a directory where its -wal/-shm files cannot be created, a
 * read-only mount) and a file or directory it may not open or create. A moved or deleted
 * database (SQLITE_READONLY_DBMOVED) is not one: permissions would not fix it.
 */
function isUnwritable(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== "string") return false;
  if (code === "SQLITE_READONLY_DBMOVED") return false;
  return (
    code.startsWith("SQLITE_READONLY") ||
    code === "SQLITE_CANTOPEN" ||
    code === "SQLITE_PERM" ||
    code === "EACCES" ||
    code === "EPERM" ||
    code === "EROFS"
  );
}

/**
 * Storage naming the database file, its directory and the fix. SQLite keeps a WAL ledger's
 * `-wal` and `-shm` files beside the database and must create and write them even to read, so a
 * directory this user may not write fails every command, reads included.
 */
function unwritableLedgerError(file: string, cause: unknown): LedgerError {
  const dir = dirname(file);
  const name = basename(file);
  const code = (cause as { code?: unknown }).code;
  return new LedgerError(
    "Storage",
    `Cannot use the AWR ledger ${file}: this user may not write it or its directory ${dir} (${(cause as Error).message}). SQLite writes the database and its ${name}-wal and ${name}-shm files in ${dir}, even to read it; nothing was changed.`,
    {
      database: file,
      directory: dir,
      ...(typeof code === "string" ? { error_code: code } : {}),
    },
    {
      cause,
      next: `Give this user write access to ${dir} and the ${name} files in it (e.g. \`chmod u+w ${dir} ${file}*\` as their owner), or run awr as the user that owns them.`,
    },
  );
}

/** A statement whose read-only failures become unwritableLedgerError. */
function reportingStatement(
  statement: SqliteStatement & { readonly busy?: boolean },
  file: string,
): SqliteStatement & { readonly busy?: boolean } {
  const translate = (error: unknown): never => {
    throw isUnwritable(error) ? unwritableLedgerError(file, error) : error;
  };
  return {
    get reader() {
      return statement.reader;
    },
    get busy() {
      return statement.busy;
    },
    all(parameters) {
      try {
        return statement.all(parameters);
      } catch (error) {
        return translate(error);
      }
    },
    run(parameters) {
      try {
        return statement.run(parameters);
      } catch (error) {
        return translate(error);
      }
    },
    iterate(parameters) {
      try {
        return statement.iterate(parameters);
      } catch (error) {
        return translate(error);
      }
    },
  };
}

/**
 * Opens (creating if needed) a SQLite ledger file through better-sqlite3: WAL journal,
 * synchronous=FULL so every commit is durable, foreign keys on, recursive triggers on (the
 * event guards), and a busy timeout. Statements
 * are prepared once per SQL text and reused (withStatementCache).
 * better-sqlite3 is an optional peer: the error names the fix when it is missing. A file or
 * directory this user may not write is Storage naming both and the fix (unwritableLedgerError),
 * when opening and when a later statement meets it (a read-only database file lets reads through
 * and refuses the first write).
 */
export async function openSqliteKysely(file: string): Promise<Kysely<LedgerSchema>> {
  try {
    betterSqlite3Module(); // loaded first, so that a missing package gets the error naming the fix
  } catch (cause) {
    throw new LedgerError(
      "Unsupported",
      "The SQLite backend needs the better-sqlite3 package; add it to your application's " +
        "dependencies (npm install better-sqlite3@12) or pass a Kysely instance to openLedger.",
      undefined,
      { cause },
    );
  }
  let database: import("better-sqlite3").Database | undefined;
  try {
    if (file !== ":memory:") mkdirSync(dirname(file), { recursive: true });
    database = openBetterSqlite3(file, { timeout: SQLITE_BUSY_TIMEOUT_MS });
    // The first statement that touches the file: where a directory without write access fails.
    database.pragma("journal_mode = WAL");
    database.pragma("synchronous = FULL");
    database.pragma(`wal_autocheckpoint = ${SQLITE_WAL_AUTOCHECKPOINT_PAGES}`);
    database.pragma("foreign_keys = ON");
    database.pragma(`busy_timeout = ${SQLITE_BUSY_TIMEOUT_MS}`);
    // REPLACE deletes the row it overwrites without firing delete triggers unless this is on, so
    // without it `INSERT OR REPLACE` could rewrite an append-only event.
    database.pragma("recursive_triggers = ON");
  } catch (error) {
    database?.close();
    throw isUnwritable(error) ? unwritableLedgerError(file, error) : error;
  }
  const opened = database;
  const reporting: PreparingDatabase = {
    close: () => opened.close(),
    prepare: (sql) => reportingStatement(opened.prepare(sql), file),
  };
  const statements = withStatementCache(reporting);
  const db = new KyselyClass<LedgerSchema>({
    dialect: new SqliteDialect({ database: statements }),
  });
  rememberOwnSqlite(db, statements);
  return db;
}
