import type { OpenedDatabase, StorageDialect } from "../dialect.js";
import { isOwnSqliteDatabase } from "./held-connection.js";
import { openSqliteKysely } from "./open-sqlite.js";
import { sqliteDoctor } from "./sqlite-doctor.js";
import { holdLease, leaseHeldElsewhere } from "./sqlite-lease-lock.js";
import { SQLITE_SEARCH } from "./sqlite-search.js";
import { inSqliteTransaction } from "./sqlite-transaction.js";

/**
 * SQLite (better-sqlite3, one connection per Kysely instance): BEGIN IMMEDIATE transactions, a
 * lease row as the cross-process project lock (checked at the start of every write transaction),
 * and the database file's own write lock for migrations (BEGIN IMMEDIATE already serialises them);
 * FTS5 and trigram search; the doctor's pragma, integrity and schema-text checks.
 */
export const SQLITE_DIALECT: StorageDialect = {
  name: "sqlite",
  connectsByUrl: false,
  choose: (choices) => choices.sqlite,
  transaction: inSqliteTransaction,
  async enterWriteTransaction(tx, projectId, lockHeld) {
    return lockHeld || !(await leaseHeldElsewhere(tx, projectId));
  },
  holdProjectLock: holdLease,
  relaxedLeaseCommits: (db, requested) => requested ?? isOwnSqliteDatabase(db),
  async lockMigrations() {},
  search: SQLITE_SEARCH,
  doctor: sqliteDoctor(() => SQLITE_DIALECT),
};

/** Opens (creating if needed) a SQLite ledger file, as openSqliteKysely describes. */
export async function openSqliteDatabase(file: string): Promise<OpenedDatabase> {
  const db = await openSqliteKysely(file);
  return { db, dialect: SQLITE_DIALECT, close: () => db.destroy() };
}
