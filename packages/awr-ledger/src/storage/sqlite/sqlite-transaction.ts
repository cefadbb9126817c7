import type { Kysely } from "kysely";
import { runPlainStatement, withHeldConnection } from "./held-connection.js";

/**
 * `BEGIN IMMEDIATE` … `COMMIT` (or `ROLLBACK` when `fn` throws) on a SQLite connection the
 * caller already holds (`db.connection().execute`): BEGIN IMMEDIATE takes the database write lock
 * up front (waiting up to busy_timeout), so two writers never both read and then both write.
 */
export async function sqliteTransaction<DB, T>(
  conn: Kysely<DB>,
  fn: (tx: Kysely<DB>) => Promise<T>,
): Promise<T> {
  await runPlainStatement(conn, "BEGIN IMMEDIATE");
  let result: T;
  try {
    result = await fn(conn);
  } catch (error) {
    try {
      await runPlainStatement(conn, "ROLLBACK");
    } catch {
      // SQLite may already have rolled back (e.g. on SQLITE_FULL); the error that failed the
      // transaction is the one to throw.
    }
    throw error;
  }
  await runPlainStatement(conn, "COMMIT");
  return result;
}

/**
 * One durable transaction on a SQLite database; kysely's SQLite driver holds its single
 * connection for the whole callback, and the ledger's own prepared queries run on it directly.
 */
export function inSqliteTransaction<DB, T>(
  db: Kysely<DB>,
  fn: (tx: Kysely<DB>) => Promise<T>,
): Promise<T> {
  return withHeldConnection(db, (conn) => sqliteTransaction(conn, fn));
}
