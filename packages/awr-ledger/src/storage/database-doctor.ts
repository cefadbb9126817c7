import type { Kysely } from "kysely";
import type { LedgerSchema } from "./schema.js";

/**
 * The database part of `awr doctor` (docs/design/work-branches.md, "awr doctor";
 * docs/compatibility/storage.md), read without creating, migrating or repairing anything.
 * PostgreSQL has no page check and no connection pragmas: those fields are null there, `integrity`
 * says whether every owned table could be read, and the report's `limitations` say so.
 */
export interface DatabaseReport {
  ok: boolean;
  application_id: number | null;
  schema_version: number;
  sqlite_version: string | null;
  journal_mode: string | null;
  foreign_keys: boolean;
  busy_timeout_ms: number | null;
  /** `applied_at` in milliseconds since the epoch. */
  migrations: { version: number; name: string; applied_at: number }[];
  integrity: string[];
  foreign_key_violations: number;
  schema_issues: string[];
  /** Present when SQLite's foreign-key check could not run (then the count proves nothing). */
  foreign_key_check_error?: string;
}

/** What the database-neutral part of the doctor has read before a dialect reports. */
export interface ReportBasis {
  schemaVersion: number;
  read: DatabaseReport["migrations"];
  issues: string[];
}

/**
 * The doctor's queries on one database: its integrity and settings, its owned schema compared
 * with what this build's migrations create, and what it cannot check there. Nothing is repaired.
 */
export interface DatabaseDoctor {
  /** The report of `db` (already inside one read snapshot), but for `ok`. */
  report(db: Kysely<LedgerSchema>, basis: ReportBasis): Promise<Omit<DatabaseReport, "ok">>;
  /**
   * Each owned object of `db` that is missing or differs from what a fresh ledger holds, one line
   * naming it (never its SQL): `missing index claims_one_active`. Extra objects are allowed.
   */
  schemaIssues(db: Kysely<LedgerSchema>): Promise<string[]>;
  /** What the doctor cannot observe on this database, for the report's `limitations`. */
  readonly limitations: readonly string[];
  /**
   * A read-only connection to another ledger file (`awr doctor --database PATH`, `file` already
   * absolute); InvalidInput where this database's ledgers are not files.
   */
  openFile(file: string): Kysely<LedgerSchema>;
}
