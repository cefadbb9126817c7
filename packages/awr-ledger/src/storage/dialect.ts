import type { Kysely } from "kysely";
import type { DatabaseDoctor } from "./database-doctor.js";
import type { LockHold, LockOptions } from "./project-lock.js";
import type { LedgerSchema } from "./schema.js";
import type { SearchEngine } from "./search-rank.js";

/** The databases a ledger can live in, as the manifest's `[storage] backend` names them. */
export const STORAGE_BACKENDS = ["sqlite", "postgres"] as const;
export type Backend = (typeof STORAGE_BACKENDS)[number];

/** The database of a manifest without `[storage] backend`: the project's own SQLite file. */
export const DEFAULT_BACKEND: Backend = "sqlite";

/** Where a project's ledger lives, as the manifest's `[storage]` table says. */
export interface StorageConfig {
  backend: Backend;
  /** The environment variable holding the server's URL (required when connectsByUrl). */
  url_env?: string | undefined;
  /** PostgreSQL: the schema that holds the ledger. */
  schema?: string | undefined;
}

/** One value per database (a migration's statements); a dialect picks its own. */
export type PerBackend<T> = Readonly<Record<Backend, T>>;

/**
 * Everything the ledger does differently per database, behind one interface (in the spirit of
 * kysely's Dialect): transactions, the project write lock, the migration lock, the choice of
 * per-database migration statements, text search and the doctor's queries. One implementation
 * per database (storage/sqlite/sqlite-dialect.ts, storage/postgres/postgres-dialect.ts), each
 * bundling its driver and queries; the rest of the ledger holds a StorageDialect and never asks
 * which database it runs on (scripts/dependency-rules.ts forbids `choose(`, `dialect.name` and
 * imports of storage/sqlite or storage/postgres outside storage/).
 * The contract both satisfy is test/storage-dialect-contract.test.ts.
 */
export interface StorageDialect {
  /** The manifest's name for this database. */
  readonly name: Backend;
  /**
   * True when the database is a server reached through a URL held in an environment variable
   * (the manifest's `url_env`, required then); false when it is a file in the project's `.awr/`.
   */
  readonly connectsByUrl: boolean;

  /** This database's entry of `choices` (inside storage/ only: a migration's statements). */
  choose<T>(choices: PerBackend<T>): T;

  /**
   * Runs `fn` in one durable transaction that serialises with every other writer of the file or
   * schema (SQLite `BEGIN IMMEDIATE`, which takes the write lock up front; PostgreSQL an ordinary
   * transaction, serialised by enterWriteTransaction). Rolls back when `fn` throws.
   */
  transaction<DB, T>(db: Kysely<DB>, fn: (tx: Kysely<DB>) => Promise<T>): Promise<T>;

  /**
   * Run first inside each write transaction of a store: takes this database's in-transaction share
   * of the project write lock. `lockHeld` says this process already holds the cross-process lock
   * (holdProjectLock): then it always resolves true. Otherwise it resolves false when another
   * process holds the project lock: the caller ends the (still empty) transaction and retries
   * after a backoff.
   */
  enterWriteTransaction(
    tx: Kysely<LedgerSchema>,
    projectId: string,
    lockHeld: boolean,
  ): Promise<boolean>;

  /**
   * Holds the cross-process project lock around `fn` (the caller already holds the in-process
   * mutex): waits, with backoff, while another process holds it; `options.signal` aborts the wait.
   * `fn` gets the hold its write transactions enter (HELD_LOCK once taken; with
   * `options.leaseInWrites` a dialect may instead take and release it inside those
   * transactions). `relaxedCommits`: see relaxedLeaseCommits.
   */
  holdProjectLock<T>(
    db: Kysely<LedgerSchema>,
    projectId: string,
    fn: (hold: LockHold) => Promise<T>,
    options: LockOptions,
    relaxedCommits: boolean,
  ): Promise<T>;

  /**
   * Whether the lock bookkeeping of `db` may be committed without an fsync (SQLite lease rows on a
   * connection known to run synchronous=FULL, see sqlite/sqlite-lease-lock.ts); `requested` is
   * the caller's choice, undefined for this database's default. Always false where no such
   * bookkeeping exists.
   */
  relaxedLeaseCommits(db: object, requested: boolean | undefined): boolean;

  /** Inside the migration transaction: makes concurrent migrators of one database take turns. */
  lockMigrations<DB>(tx: Kysely<DB>): Promise<void>;

  /** This database's text search over records and events. */
  readonly search: SearchEngine;

  /** This database's queries for `awr doctor`. */
  readonly doctor: DatabaseDoctor;
}

export interface OpenedDatabase {
  db: Kysely<LedgerSchema>;
  dialect: StorageDialect;
  /** Destroys what this module created; a caller-provided Kysely instance is not destroyed. */
  close(): Promise<void>;
}
