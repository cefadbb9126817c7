import type { Kysely } from "kysely";
import { sql } from "../internal/kysely.js";
import type { Backend } from "./migration.js";

/**
 * Runs `fn` inside one durable transaction. On SQLite it is `BEGIN IMMEDIATE`, which takes the
 * database write lock up front (waiting up to busy_timeout), so two writers never both read and
 * then both write; kysely's SQLite driver holds its single connection for the whole callback.
 * On PostgreSQL it is an ordinary kysely transaction.
 */
export async function inTransaction<DB, T>(
  db: Kysely<DB>,
  backend: Backend,
  fn: (tx: Kysely<DB>) => Promise<T>,
): Promise<T> {
  if (backend === "postgres") return db.transaction().execute(fn);
  return db.connection().execute((conn) => sqliteTransaction(conn, fn));
}

/**
 * `BEGIN IMMEDIATE` … `COMMIT` (or `ROLLBACK` when `fn` throws) on a SQLite connection the
 * caller already holds (`db.connection().execute`), for callers that run more statements on
 * that same connection around the transaction.
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
