import type { StorageDialect } from "../dialect.js";
import { holdLease, leaseHeldElsewhere } from "./sqlite-lease-lock.js";
import { inSqliteTransaction } from "./sqlite-transaction.js";

/** Kysely instances made by openSqliteDatabase: one connection, set to synchronous=FULL there. */
const ownSqlite = new WeakSet<object>();

/** Marks a Kysely instance as made by openSqliteDatabase (see isOwnSqliteDatabase). */
export function rememberOwnSqlite(db: object): void {
  ownSqlite.add(db);
}

/**
 * True for a Kysely instance that openSqliteDatabase made (also when a caller passes it back to
 * openLedger): its single connection runs synchronous=FULL, so the project-lock lease rows may
 * be committed without an fsync and FULL restored after (see sqlite-lease-lock.ts). False for
 * any other instance, whose settings are its owner's: its lease commits stay as configured.
 */
export function isOwnSqliteDatabase(db: object): boolean {
  return ownSqlite.has(db);
}

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
