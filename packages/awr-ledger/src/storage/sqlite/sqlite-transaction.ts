import type { Kysely } from "kysely";
import { sql } from "../../internal/kysely.js";

/**
 * `BEGIN IMMEDIATE` … `COMMIT` (or `ROLLBACK` when `fn` throws) on a SQLite connection the
 * caller already holds (`db.connection().execute`): BEGIN IMMEDIATE takes the database write lock
 * up front (waiting up to busy_timeout), so two writers never both read and then both write.
 */
export async function sqliteTransaction<DB, T>(
  conn: Kysely<DB>,
  fn: (tx: Kysely<DB>) => Promise<T>,
): Promise<T> {
  await sql`BEGIN IMMEDIATE`.execute(conn);
  let result: T;
  try {
    result = await fn(conn);
  } catch (error) {
    try {
      await sql`ROLLBACK`.execute(conn);
    } catch {
      // SQLite may already have rolled back (e.g. on SQLITE_FULL); the original error matters.
    }
    throw error;
  }
  await sql`COMMIT`.execute(conn);
  return result;
}

/**
 * One durable transaction on a SQLite database; kysely's SQLite driver holds its single
 * connection for the whole callback.
 */
export function inSqliteTransaction<DB, T>(
  db: Kysely<DB>,
  fn: (tx: Kysely<DB>) => Promise<T>,
): Promise<T> {
  return db.connection().execute((conn) => sqliteTransaction(conn, fn));
}
