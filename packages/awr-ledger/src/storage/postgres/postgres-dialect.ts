import { sql } from "../../internal/kysely.js";
import type { StorageDialect } from "../dialect.js";
import { HELD_LOCK } from "../project-lock.js";
import { advisoryKey, holdAdvisoryLock } from "./advisory-lock.js";
import { POSTGRES_DOCTOR } from "./postgres-doctor.js";
import { POSTGRES_SEARCH } from "./postgres-search.js";

/** A constant advisory-lock key so concurrent openers of one PostgreSQL schema migrate once. */
const MIGRATION_LOCK_KEY = "7301002001";

/**
 * PostgreSQL (pg pool): ordinary kysely transactions; the project write lock is an advisory lock
 * on the project's key (session-scoped across a withProjectLock, transaction-scoped for a single
 * write) plus `SELECT … FOR UPDATE` on the project_state row; migrations take their own
 * transaction-scoped advisory lock; tsvector and trigram search; the doctor's checks by name.
 */
export const POSTGRES_DIALECT: StorageDialect = {
  name: "postgres",
  connectsByUrl: true,
  choose: (choices) => choices.postgres,
  transaction: (db, fn) => db.transaction().execute(fn),
  async enterWriteTransaction(tx, projectId, lockHeld) {
    if (!lockHeld) {
      await sql`SELECT pg_advisory_xact_lock(${advisoryKey(projectId)}::bigint)`.execute(tx);
    }
    await sql`SELECT revision FROM project_state WHERE project_id = ${projectId} FOR UPDATE`.execute(
      tx,
    );
    return true;
  },
  holdProjectLock: (db, projectId, fn, options) =>
    holdAdvisoryLock(db, projectId, () => fn(HELD_LOCK), options),
  relaxedLeaseCommits: () => false,
  async lockMigrations(tx) {
    await sql`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK_KEY}::bigint)`.execute(tx);
  },
  search: POSTGRES_SEARCH,
  doctor: POSTGRES_DOCTOR,
};
