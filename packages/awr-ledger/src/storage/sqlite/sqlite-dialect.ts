import type { StorageDialect } from "../dialect.js";
import { isOwnSqliteDatabase } from "./held-connection.js";
import { holdLease, leaseHeldElsewhere } from "./sqlite-lease-lock.js";
import { inSqliteTransaction } from "./sqlite-transaction.js";

/**
 * SQLite (better-sqlite3, one connection per Kysely instance): BEGIN IMMEDIATE transactions, a
 * lease row as the cross-process project lock (checked at the start of every write transaction),
 * and the database file's own write lock for migrations (BEGIN IMMEDIATE already serialises them).
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
};
