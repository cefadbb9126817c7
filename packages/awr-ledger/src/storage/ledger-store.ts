import type { Kysely } from "kysely";
import { throwIfAborted } from "../internal/abort.js";
import { sql } from "../internal/kysely.js";
import type { Backend } from "./migration.js";
import { isOwnSqliteDatabase } from "./open-database.js";
import {
  advisoryKey,
  backoff,
  holdCrossProcessLock,
  holdsProjectLock,
  type LockOptions,
  leaseHeldElsewhere,
  mutexFor,
  runHoldingLock,
} from "./project-lock.js";
import type { LedgerSchema } from "./schema.js";
import { inTransaction } from "./transaction.js";

/** A kysely handle inside a write transaction (a `Transaction` on PostgreSQL). */
export type LedgerTx = Kysely<LedgerSchema>;

/**
 * What every per-operation module receives: the database, its backend, the project id and the
 * locking primitives. The Ledger facade owns one and passes it on.
 */
export interface LedgerStoreOptions {
  /**
   * SQLite only: the project-lock lease length in milliseconds used when a call passes no
   * `leaseMs` (default DEFAULT_LEASE_MS). A holder on another host that crashed blocks writers
   * for at most this long; a crashed holder on this host is taken over at once.
   */
  lockLeaseMs?: number | undefined;
  /**
   * SQLite only: commit the project-lock lease rows without an fsync (synchronous=NORMAL around
   * them, FULL again after; see project-lock.ts for why that keeps every guarantee). Only for a
   * connection known to run synchronous=FULL; default: true exactly for a database opened by
   * openSqliteDatabase (isOwnSqliteDatabase), false for any other.
   */
  relaxedLeaseCommits?: boolean | undefined;
}

export class LedgerStore {
  readonly db: Kysely<LedgerSchema>;
  readonly backend: Backend;
  readonly projectId: string;
  readonly lockLeaseMs: number | undefined;
  readonly relaxedLeaseCommits: boolean;

  constructor(
    db: Kysely<LedgerSchema>,
    backend: Backend,
    projectId: string,
    options: LedgerStoreOptions = {},
  ) {
    this.db = db;
    this.backend = backend;
    this.projectId = projectId;
    this.lockLeaseMs = options.lockLeaseMs;
    this.relaxedLeaseCommits =
      backend === "sqlite" && (options.relaxedLeaseCommits ?? isOwnSqliteDatabase(db));
  }

  /** Runs a read. Reads never take the write lock; they run concurrently with each other. */
  async read<T>(fn: (db: Kysely<LedgerSchema>) => Promise<T>, options?: LockOptions): Promise<T> {
    throwIfAborted(options?.signal);
    return fn(this.db);
  }

  /**
   * Runs `fn` in ONE durable transaction holding the project's write lock: SQLite BEGIN IMMEDIATE
   * (after checking no other process holds the lease), PostgreSQL a transaction-scoped advisory
   * lock plus `SELECT … FOR UPDATE` on the project_state row. Inside withProjectLock it re-enters
   * without waiting. Never call store.read/write from inside `fn`: use `tx`.
   */
  async write<T>(fn: (tx: LedgerTx) => Promise<T>, options?: LockOptions): Promise<T> {
    throwIfAborted(options?.signal);
    if (holdsProjectLock(this.projectId)) return this.#transaction(fn, true);
    return mutexFor(this.projectId).run(async () => {
      for (let attempt = 0; ; attempt++) {
        throwIfAborted(options?.signal);
        const outcome = await this.#transaction(async (tx) => {
          if (this.backend === "sqlite" && (await leaseHeldElsewhere(tx, this.projectId))) {
            return { busy: true as const };
          }
          return { busy: false as const, value: await fn(tx) };
        }, false);
        if (!outcome.busy) return outcome.value;
        await backoff(attempt, options?.signal);
      }
    });
  }

  /**
   * Holds the project write lock across several durable transactions (the journal's begin /
   * domain / finish). Writes by this async context inside `fn` re-enter; every other writer, in
   * this process or another, waits until `fn` settles.
   */
  async withProjectLock<T>(fn: () => Promise<T>, options?: LockOptions): Promise<T> {
    throwIfAborted(options?.signal);
    if (holdsProjectLock(this.projectId)) return fn();
    return mutexFor(this.projectId).run(() =>
      holdCrossProcessLock(
        this.db,
        this.backend,
        this.projectId,
        () => runHoldingLock(this.projectId, fn),
        { signal: options?.signal, leaseMs: options?.leaseMs ?? this.lockLeaseMs },
        this.relaxedLeaseCommits,
      ),
    );
  }

  /** The current project revision (0 before anything happened). */
  async currentRevision(db: Kysely<LedgerSchema> = this.db): Promise<number> {
    const row = await db
      .selectFrom("project_state")
      .select("revision")
      .where("project_id", "=", this.projectId)
      .executeTakeFirst();
    return Number(row?.revision ?? 0);
  }

  async #transaction<T>(fn: (tx: LedgerTx) => Promise<T>, lockHeld: boolean): Promise<T> {
    return inTransaction(this.db, this.backend, async (tx) => {
      if (this.backend === "postgres") {
        if (!lockHeld) {
          await sql`SELECT pg_advisory_xact_lock(${advisoryKey(this.projectId)}::bigint)`.execute(
            tx,
          );
        }
        await sql`SELECT revision FROM project_state WHERE project_id = ${this.projectId} FOR UPDATE`.execute(
          tx,
        );
      }
      return fn(tx);
    });
  }
}
