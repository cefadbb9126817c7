import type { Kysely } from "kysely";
import { sql } from "../../internal/kysely.js";

/** Prepares (or finds prepared) a statement of the connection by its SQL text. */
export interface StatementSource {
  prepare(sql: string): {
    readonly reader: boolean;
    all(parameters: ReadonlyArray<unknown>): unknown[];
    run(parameters: ReadonlyArray<unknown>): unknown;
  };
}

/** The Kysely instances openSqliteDatabase made, with where their one connection prepares. */
const sources = new WeakMap<object, StatementSource>();

/** The handles of connections held right now (see withHeldConnection), with their statements. */
const held = new WeakMap<object, StatementSource>();

/** Records a Kysely instance openSqliteDatabase made, and its statement source. */
export function rememberOwnSqlite(db: object, source: StatementSource): void {
  sources.set(db, source);
}

/**
 * True for a Kysely instance that openSqliteDatabase made (also when a caller passes it back to
 * openLedger): its single connection runs synchronous=FULL, so the project-lock lease rows may
 * be committed without an fsync and FULL restored after (see sqlite-lease-lock.ts), and its
 * statements may run directly on a held connection. False for any other instance, whose
 * settings are its owner's: its lease commits stay as configured, its statements go through
 * kysely.
 */
export function isOwnSqliteDatabase(db: object): boolean {
  return sources.has(db);
}

/**
 * Runs `fn` holding `db`'s connection (kysely's `connection().execute`). While it runs, the handle
 * `fn` gets may also run statements directly on the connection (heldStatements): kysely's
 * connection mutex keeps every other caller out until `fn` settles, and better-sqlite3 runs each
 * statement synchronously, so a direct statement runs inside whatever transaction `fn` has open,
 * exactly as the same statement sent through kysely would, without the query pipeline's cost.
 */
export function withHeldConnection<DB, T>(
  db: Kysely<DB>,
  fn: (conn: Kysely<DB>) => Promise<T>,
): Promise<T> {
  const source = sources.get(db);
  return db.connection().execute(async (conn) => {
    if (source === undefined) return fn(conn);
    held.set(conn, source);
    try {
      return await fn(conn);
    } finally {
      held.delete(conn);
    }
  });
}

/**
 * The statement source of a handle whose connection is held right now (inside
 * withHeldConnection); undefined for any other handle (the root instance, another database, a
 * caller's own Kysely instance, a handle whose hold has ended), which must go through kysely.
 */
export function heldStatements(db: object): StatementSource | undefined {
  return held.get(db);
}

/**
 * Runs one statement without parameters or rows (transaction control, a pragma): directly on a
 * held connection, else through kysely.
 */
export async function runPlainStatement<DB>(conn: Kysely<DB>, statement: string): Promise<void> {
  const statements = heldStatements(conn);
  if (statements !== undefined) statements.prepare(statement).run([]);
  else await sql.raw(statement).execute(conn);
}
