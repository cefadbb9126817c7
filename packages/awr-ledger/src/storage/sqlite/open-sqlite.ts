import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { LedgerError } from "../../errors.js";
import { KyselyClass, SqliteDialect } from "../../internal/kysely.js";
import { betterSqlite3Module, openBetterSqlite3 } from "../../internal/lazy-dependencies.js";
import type { OpenedDatabase } from "../dialect.js";
import type { LedgerSchema } from "../schema.js";
import { withStatementCache } from "../sqlite-statement-cache.js";
import { rememberOwnSqlite, SQLITE_DIALECT } from "./sqlite-dialect.js";

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
 * synchronous=FULL so every commit is durable, foreign keys on, recursive triggers on (the
 * event guards), and a busy timeout. Statements
 * are prepared once per SQL text and reused (withStatementCache).
 * better-sqlite3 is an optional peer: the error names the fix when it is missing.
 */
export async function openSqliteDatabase(file: string): Promise<OpenedDatabase> {
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
  if (file !== ":memory:") mkdirSync(dirname(file), { recursive: true });
  const database = openBetterSqlite3(file, { timeout: SQLITE_BUSY_TIMEOUT_MS });
  database.pragma("journal_mode = WAL");
  database.pragma("synchronous = FULL");
  database.pragma(`wal_autocheckpoint = ${SQLITE_WAL_AUTOCHECKPOINT_PAGES}`);
  database.pragma("foreign_keys = ON");
  database.pragma(`busy_timeout = ${SQLITE_BUSY_TIMEOUT_MS}`);
  // REPLACE deletes the row it overwrites without firing delete triggers unless this is on, so
  // without it `INSERT OR REPLACE` could rewrite an append-only event.
  database.pragma("recursive_triggers = ON");
  const db = new KyselyClass<LedgerSchema>({
    dialect: new SqliteDialect({ database: withStatementCache(database) }),
  });
  rememberOwnSqlite(db);
  return { db, dialect: SQLITE_DIALECT, close: () => db.destroy() };
}
