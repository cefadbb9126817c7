import type { Kysely } from "kysely";
import { throwIfAborted } from "../internal/abort.js";
import type { StorageDialect } from "./dialect.js";
import { PreparedQuery } from "./prepared-query.js";
import { backoff, type LockHold, type LockOptions, mutexFor } from "./project-lock.js";
import type { LedgerSchema } from "./schema.js";

/** A kysely handle inside a write transaction (a `Transaction` on PostgreSQL). */
export type LedgerTx = Kysely<LedgerSchema>;

export interface WriteOptions<T> extends LockOptions {
  /**
   * Inside withProjectLock: this transaction ends the hold, so a lock folded into the holder's
   * writes (LockOptions.leaseInWrites) is released in it rather than by a commit of its own. A
   * function decides from the transaction's value. The caller writes nothing after it.
   */
  releasesLock?: boolean | ((value: T) => boolean) | undefined;
}

/**
 * What every per-operation module receives: the database, its dialect, the project id and the
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
   * them, FULL again after; see sqlite/sqlite-lease-lock.ts for why that keeps every guarantee). Only for a
   * connection known to run synchronous=FULL; default: true exactly for a database opened by
   * openSqliteDatabase (isOwnSqliteDatabase), false for any other. Ignored on PostgreSQL.
   */
  relaxedLeaseCommits?: boolean | undefined;
}

const projectRevisionQuery = new PreparedQuery<{ project_id: string }, { revision: number }>(
  (db, $) =>
    db.selectFrom("project_state").select("revision").where("project_id", "=", $("project_id")),
);

type Outcome<T> = { busy: true } | { busy: false; value: T };

export class LedgerStore {
  readonly db: Kysely<LedgerSchema>;
  readonly dialect: StorageDialect;
  readonly projectId: string;
  readonly lockLeaseMs: number | undefined;
  readonly relaxedLeaseCommits: boolean;
  /** Set on the store withProjectLock hands its holder: what that holder holds. */
  #hold: LockHold | undefined;

  constructor(
    db: Kysely<LedgerSchema>,
    dialect: StorageDialect,
    projectId: string,
    options: LedgerStoreOptions = {},
  ) {
    this.db = db;
    this.dialect = dialect;
    this.projectId = projectId;
    this.lockLeaseMs = options.lockLeaseMs;
    this.relaxedLeaseCommits = dialect.relaxedLeaseCommits(db, options.relaxedLeaseCommits);
  }

  /** Runs a read. Reads never take the write lock; they run concurrently with each other. */
  async read<T>(fn: (db: Kysely<LedgerSchema>) => Promise<T>, options?: LockOptions): Promise<T> {
    throwIfAborted(options?.signal);
    return fn(this.db);
  }

  /**
   * Runs `fn` in ONE durable transaction holding the project's write lock (the dialect's
   * transaction, entered with enterWriteTransaction; retried after a backoff while another
   * process holds the lock). On the holder's store (withProjectLock) it enters the hold instead
   * (LockHold.enter: no wait once the cross-process lock is taken). Never call store.read/write
   * from inside `fn`: use `tx`.
   */
  async write<T>(fn: (tx: LedgerTx) => Promise<T>, options?: WriteOptions<T>): Promise<T> {
    throwIfAborted(options?.signal);
    const hold = this.#hold;
    if (hold !== undefined) {
      const signal = options?.signal ?? hold.signal;
      return this.#retrying(() => this.#heldTransaction(fn, hold, options), signal);
    }
    return mutexFor(this.projectId).run(() =>
      this.#retrying(() => this.#transaction(fn), options?.signal),
    );
  }

  /**
   * Holds the project write lock across several durable transactions (the journal's begin /
   * domain / finish). `fn` gets the holder's store: its writes enter the hold, so they go on
   * while every other writer, through any other store in this process or in another process,
   * waits until `fn` settles. Called on the holder's store, it runs `fn` at once.
   */
  async withProjectLock<T>(
    fn: (held: LedgerStore) => Promise<T>,
    options?: LockOptions,
  ): Promise<T> {
    throwIfAborted(options?.signal);
    if (this.#hold !== undefined) return fn(this);
    return mutexFor(this.projectId).run(() =>
      this.dialect.holdProjectLock(
        this.db,
        this.projectId,
        (hold) => fn(this.#holding(hold)),
        {
          signal: options?.signal,
          leaseMs: options?.leaseMs ?? this.lockLeaseMs,
          leaseInWrites: options?.leaseInWrites,
        },
        this.relaxedLeaseCommits,
      ),
    );
  }

  /** The current project revision (0 before anything happened). */
  async currentRevision(db: Kysely<LedgerSchema> = this.db): Promise<number> {
    const row = await projectRevisionQuery.first(db, { project_id: this.projectId });
    return Number(row?.revision ?? 0);
  }

  /** This store as its holder sees it, holding `hold`. */
  #holding(hold: LockHold): LedgerStore {
    const held = new LedgerStore(this.db, this.dialect, this.projectId, {
      lockLeaseMs: this.lockLeaseMs,
      relaxedLeaseCommits: this.relaxedLeaseCommits,
    });
    held.#hold = hold;
    return held;
  }

  /** Runs `attempt` until it is not busy, with a backoff between tries. */
  async #retrying<T>(attempt: () => Promise<Outcome<T>>, signal?: AbortSignal): Promise<T> {
    for (let tries = 0; ; tries++) {
      throwIfAborted(signal);
      const outcome = await attempt();
      if (!outcome.busy) return outcome.value;
      await backoff(tries, signal);
    }
  }

  /** One write transaction, or `busy` (nothing written) when another process holds the lock. */
  async #transaction<T>(fn: (tx: LedgerTx) => Promise<T>): Promise<Outcome<T>> {
    return this.dialect.transaction(this.db, async (tx) => {
      if (!(await this.dialect.enterWriteTransaction(tx, this.projectId, false))) {
        return { busy: true };
      }
      return { busy: false, value: await fn(tx) };
    });
  }

  /** One write transaction of the lock's holder: enters its hold, releases it when asked to. */
  async #heldTransaction<T>(
    fn: (tx: LedgerTx) => Promise<T>,
    hold: LockHold,
    options: WriteOptions<T> | undefined,
  ): Promise<Outcome<T> & { released?: boolean }> {
    const outcome = await this.dialect.transaction(
      this.db,
      async (tx): Promise<Outcome<T> & { released?: boolean }> => {
        if (!(await hold.enter(tx))) return { busy: true };
        const value = await fn(tx);
        const releases = options?.releasesLock;
        const released = typeof releases === "function" ? releases(value) : releases === true;
        if (released) await hold.release(tx);
        return { busy: false, value, released };
      },
    );
    if (!outcome.busy) hold.committed(outcome.released === true);
    return outcome;
  }
}
